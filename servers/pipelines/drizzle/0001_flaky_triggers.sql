-- Flaky tests: per test and commit, when it first failed and last passed. A commit is flaky for a test once
-- it passed after it had failed there. Kept by a trigger, so results inserted any way (a report, a seed) count.
CREATE TRIGGER `test_results_tally` AFTER INSERT ON `test_results` WHEN new.status IN ('passed', 'failed') BEGIN
	UPDATE tests SET runs_seen = runs_seen + 1, last_seen = max(last_seen, new.seen_at) WHERE id = new.test_id;
	INSERT INTO test_commits (test_id, commit_sha, runs, first_fail_at, last_pass_at, flaky, last_seen)
	SELECT new.test_id, new.commit_sha, 0, NULL, NULL, 0, new.seen_at
	WHERE new.commit_sha IS NOT NULL
	ON CONFLICT (test_id, commit_sha) DO NOTHING;
	UPDATE test_commits SET
		runs = runs + 1,
		first_fail_at = CASE WHEN new.status = 'failed' AND (first_fail_at IS NULL OR new.seen_at < first_fail_at)
			THEN new.seen_at ELSE first_fail_at END,
		last_pass_at = CASE WHEN new.status = 'passed' AND (last_pass_at IS NULL OR new.seen_at > last_pass_at)
			THEN new.seen_at ELSE last_pass_at END,
		last_seen = max(last_seen, new.seen_at)
	WHERE test_id = new.test_id AND commit_sha = new.commit_sha;
	UPDATE test_commits SET flaky = 1, flaky_at = last_pass_at
	WHERE test_id = new.test_id AND commit_sha = new.commit_sha AND flaky = 0 AND first_fail_at < last_pass_at;
END;
--> statement-breakpoint
CREATE TRIGGER `test_commits_count` AFTER INSERT ON `test_commits` BEGIN
	UPDATE tests SET commits_seen = commits_seen + 1 WHERE id = new.test_id;
END;
