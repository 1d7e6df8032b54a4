-- Due dates by an index, with no date written `~` (after every date): search_tickets' due_before, due_after
-- and overdue filters read it, and its sort by due date walks it (nearest first, tickets without one last).
CREATE INDEX `tickets_due_idx` ON `tickets` (ifnull(`due_date`, '~'));
