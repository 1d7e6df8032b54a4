-- Written by hand (drizzle-kit does not model functions, text search configurations or triggers): the
-- functions and the configuration come first, as the tables' indexes and generated column use them.
-- Names fold ASCII letters only, as SQLite's NOCASE does, whatever the database's locale.
CREATE FUNCTION nocase(value text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$SELECT translate(value, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')$$;
--> statement-breakpoint
-- Text as the SQLite index's tokenizer (unicode61 remove_diacritics 2, its separators) reads it before
-- stemming: accents off, lower case, control characters, ASCII punctuation and the common Unicode
-- punctuation (Latin-1, U+2000-U+206F with the bidi isolates, CJK, U+061C) as blanks, so that PostgreSQL's
-- parser makes no hosts, paths, versions or hyphenated words of them but the words SQLite makes.
CREATE FUNCTION search_fold(body text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$SELECT lower(regexp_replace(regexp_replace(normalize(body, NFD), '[\u0300-\u036f]', '', 'g'),
		'[\u0001-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u00a9\u00ab-\u00b1\u00b4\u00b6-\u00b8\u00bb\u00bf\u00d7\u00f7\u061c\u2000-\u206f\u3000-\u3003\u3008-\u3011\u3014-\u301f]',
		' ', 'g'))$$;
--> statement-breakpoint
-- SQLite's index stems (porter) and drops no word: the snowball English stemmer without a stop word list.
CREATE TEXT SEARCH DICTIONARY ticket_stem (TEMPLATE = pg_catalog.snowball, Language = english);
--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION ticket_words (COPY = pg_catalog.simple);
--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION ticket_words
	ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH ticket_stem;
--> statement-breakpoint
CREATE TABLE "comments" (
	"id" serial PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL,
	"author" text,
	"body" text NOT NULL,
	"created_at" text COLLATE "C" DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "history" (
	"id" serial PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL,
	"field" text NOT NULL,
	"old_value" text,
	"new_value" text,
	"changed_by" text,
	"changed_at" text COLLATE "C" DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "links" (
	"id" serial PRIMARY KEY NOT NULL,
	"source_id" integer NOT NULL,
	"type" text NOT NULL,
	"target_id" integer NOT NULL,
	"created_by" text,
	"created_at" text COLLATE "C" DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "people" (
	"name" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" serial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"last_number" integer DEFAULT 0 NOT NULL,
	"created_at" text COLLATE "C" DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	"archived_at" text COLLATE "C",
	CONSTRAINT "projects_key_unique" UNIQUE("key")
);
--> statement-breakpoint
CREATE TABLE "tickets" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"number" integer NOT NULL,
	"key" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"type" text NOT NULL,
	"status" text DEFAULT 'backlog' NOT NULL,
	"priority" text DEFAULT 'none' NOT NULL,
	"priority_rank" integer DEFAULT 4 NOT NULL,
	"assignee" text,
	"reporter" text,
	"labels" text DEFAULT '[]' NOT NULL,
	"estimate" double precision,
	"due_date" text COLLATE "C",
	"parent_id" integer,
	"resolution" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" text COLLATE "C" DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	"updated_at" text COLLATE "C" DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('ticket_words', search_fold("title")), 'A') || setweight(to_tsvector('ticket_words', search_fold("description")), 'B')) STORED NOT NULL,
	CONSTRAINT "tickets_key_unique" UNIQUE("key")
);
--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history" ADD CONSTRAINT "history_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_source_id_tickets_id_fk" FOREIGN KEY ("source_id") REFERENCES "tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_target_id_tickets_id_fk" FOREIGN KEY ("target_id") REFERENCES "tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_parent_id_tickets_id_fk" FOREIGN KEY ("parent_id") REFERENCES "tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "comments_ticket_idx" ON "comments" USING btree ("ticket_id","id");--> statement-breakpoint
CREATE INDEX "history_ticket_idx" ON "history" USING btree ("ticket_id","id");--> statement-breakpoint
CREATE INDEX "history_text_edits_idx" ON "history" USING btree ("id") WHERE "history"."field" IN ('title', 'description');--> statement-breakpoint
CREATE UNIQUE INDEX "links_unique_idx" ON "links" USING btree ("source_id","type","target_id");--> statement-breakpoint
CREATE INDEX "links_target_idx" ON "links" USING btree ("target_id");--> statement-breakpoint
CREATE UNIQUE INDEX "people_nocase_idx" ON "people" USING btree (nocase("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_project_number_idx" ON "tickets" USING btree ("project_id","number");--> statement-breakpoint
CREATE INDEX "tickets_project_status_idx" ON "tickets" USING btree ("project_id","status");--> statement-breakpoint
CREATE INDEX "tickets_status_idx" ON "tickets" USING btree ("status");--> statement-breakpoint
CREATE INDEX "tickets_priority_idx" ON "tickets" USING btree ("priority_rank");--> statement-breakpoint
CREATE INDEX "tickets_assignee_idx" ON "tickets" USING btree (nocase("assignee"));--> statement-breakpoint
CREATE INDEX "tickets_parent_idx" ON "tickets" USING btree ("parent_id") WHERE "tickets"."parent_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "tickets_updated_idx" ON "tickets" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "tickets_created_idx" ON "tickets" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "tickets_due_idx" ON "tickets" USING btree (coalesce("due_date", '~'));--> statement-breakpoint
CREATE INDEX "tickets_search_idx" ON "tickets" USING gin ("search");--> statement-breakpoint
-- The people a name can mean, kept as SQLite's 0010_people_archive.sql keeps them: every assignee, reporter
-- and comment author any writer stores. A name already known in any ASCII case is left as first written.
-- The functions keep the schema's search_path, so a writer with another one still reaches `people`.
CREATE FUNCTION people_from_ticket() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO people (name) SELECT NEW.assignee WHERE NEW.assignee IS NOT NULL ON CONFLICT DO NOTHING;
	INSERT INTO people (name) SELECT NEW.reporter WHERE NEW.reporter IS NOT NULL ON CONFLICT DO NOTHING;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION people_from_comment() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO people (name) VALUES (NEW.author) ON CONFLICT DO NOTHING;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER people_ticket_insert AFTER INSERT ON tickets FOR EACH ROW EXECUTE FUNCTION people_from_ticket();
--> statement-breakpoint
CREATE TRIGGER people_ticket_update AFTER UPDATE OF assignee, reporter ON tickets
	FOR EACH ROW EXECUTE FUNCTION people_from_ticket();
--> statement-breakpoint
CREATE TRIGGER people_comment_insert AFTER INSERT ON comments
	FOR EACH ROW WHEN (NEW.author IS NOT NULL) EXECUTE FUNCTION people_from_comment();
