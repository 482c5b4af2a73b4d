-- The `cancelled` state is gone: a task left unsent by a stopped run stays pending.
UPDATE jobs SET state = 'pending', reason = NULL WHERE state = 'cancelled';
