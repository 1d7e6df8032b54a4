CREATE TABLE "snippet_tags" (
	"tag" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "snippet_tags_tag_n_pk" PRIMARY KEY("tag","n")
);
--> statement-breakpoint
CREATE TABLE "snippet_uses" (
	"id" serial PRIMARY KEY NOT NULL,
	"n" integer NOT NULL,
	"outcome" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"at" text DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "snippet_versions" (
	"n" integer NOT NULL,
	"version" integer NOT NULL,
	"title" text NOT NULL,
	"language" text,
	"description" text NOT NULL,
	"tags" text NOT NULL,
	"source" text,
	"saved_at" text NOT NULL,
	"code" text NOT NULL,
	CONSTRAINT "snippet_versions_n_version_pk" PRIMARY KEY("n","version")
);
--> statement-breakpoint
CREATE TABLE "snippets" (
	"n" serial PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"title" text NOT NULL,
	"language" text,
	"description" text DEFAULT '' NOT NULL,
	"tags" text DEFAULT '[]' NOT NULL,
	"source" text,
	"hash" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"worked" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"last_used_at" text,
	"created_at" text DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	"updated_at" text DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	"head" text DEFAULT '' NOT NULL,
	"lines" integer DEFAULT 0 NOT NULL,
	"code" text NOT NULL,
	"search" "tsvector" NOT NULL,
	CONSTRAINT "snippets_id_unique" UNIQUE("id"),
	CONSTRAINT "snippets_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
ALTER TABLE "snippet_tags" ADD CONSTRAINT "snippet_tags_n_snippets_n_fk" FOREIGN KEY ("n") REFERENCES "snippets"("n") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snippet_uses" ADD CONSTRAINT "snippet_uses_n_snippets_n_fk" FOREIGN KEY ("n") REFERENCES "snippets"("n") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snippet_versions" ADD CONSTRAINT "snippet_versions_n_snippets_n_fk" FOREIGN KEY ("n") REFERENCES "snippets"("n") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "snippet_tags_n_idx" ON "snippet_tags" USING btree ("n");--> statement-breakpoint
CREATE INDEX "snippet_uses_n_idx" ON "snippet_uses" USING btree ("n");--> statement-breakpoint
CREATE INDEX "snippets_language_idx" ON "snippets" USING btree ("language","updated_at");--> statement-breakpoint
CREATE INDEX "snippets_updated_idx" ON "snippets" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "snippets_used_idx" ON "snippets" USING btree (("worked" + "failed"),"updated_at");--> statement-breakpoint
CREATE INDEX "snippets_search_idx" ON "snippets" USING gin ("search");