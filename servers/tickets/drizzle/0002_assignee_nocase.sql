-- Assignee names compare without regard to (ASCII) case: a search for Ana finds tickets assigned to ana.
DROP INDEX `tickets_assignee_idx`;--> statement-breakpoint
CREATE INDEX `tickets_assignee_idx` ON `tickets` ("assignee" COLLATE NOCASE);