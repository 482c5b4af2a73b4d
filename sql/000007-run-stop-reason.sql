-- Why a run stopped before its end (balance, budget, interrupt), for `gwrun status`.
ALTER TABLE runs ADD COLUMN stop_reason TEXT;
