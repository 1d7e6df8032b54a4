CREATE TABLE "events" (
	"id" serial PRIMARY KEY NOT NULL,
	"story_id" integer NOT NULL,
	"sprint_id" integer,
	"type" text NOT NULL,
	"from_value" text,
	"to_value" text,
	"points" double precision,
	"at" text COLLATE "C" NOT NULL,
	"actor" text
);
--> statement-breakpoint
CREATE TABLE "sprints" (
	"id" serial PRIMARY KEY NOT NULL,
	"team" text NOT NULL,
	"name" text NOT NULL,
	"goal" text DEFAULT '' NOT NULL,
	"start_date" text COLLATE "C" NOT NULL,
	"end_date" text COLLATE "C" NOT NULL,
	"capacity" double precision,
	"status" text DEFAULT 'planned' NOT NULL,
	"started_at" text COLLATE "C",
	"closed_at" text COLLATE "C",
	"summary" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stories" (
	"id" serial PRIMARY KEY NOT NULL,
	"team" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"acceptance" text DEFAULT '[]' NOT NULL,
	"points" double precision,
	"priority" text DEFAULT 'none' NOT NULL,
	"assignee" text,
	"status" text DEFAULT 'todo' NOT NULL,
	"sprint_id" integer,
	"rank" text COLLATE "C" NOT NULL,
	"ticket_ref" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_story_id_stories_id_fk" FOREIGN KEY ("story_id") REFERENCES "stories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stories" ADD CONSTRAINT "stories_sprint_id_sprints_id_fk" FOREIGN KEY ("sprint_id") REFERENCES "sprints"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_sprint" ON "events" USING btree ("sprint_id","at");--> statement-breakpoint
CREATE INDEX "events_story" ON "events" USING btree ("story_id","id");--> statement-breakpoint
CREATE INDEX "sprints_team_status" ON "sprints" USING btree ("team","status","id");--> statement-breakpoint
CREATE UNIQUE INDEX "sprints_one_active" ON "sprints" USING btree ("team") WHERE status = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "stories_team_rank" ON "stories" USING btree ("team","rank");--> statement-breakpoint
CREATE INDEX "stories_sprint_status_rank" ON "stories" USING btree ("sprint_id","status","rank");--> statement-breakpoint
CREATE INDEX "stories_team_sprint_rank" ON "stories" USING btree ("team","sprint_id","rank");