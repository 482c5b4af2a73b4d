-- What the model said in declining, when a text answer is a refusal ('' when it gave no words);
-- NULL for an answer. Tool calls cut off by the token limit need no column: `tool_calls` is JSON.
ALTER TABLE text_answers ADD COLUMN refusal TEXT;
