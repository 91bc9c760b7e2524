-- SPDX-License-Identifier: BSL-1.0
-- The framework's state on PostgreSQL as the previous release left it (state step 1 applied by
-- postgres::migrate), with a few rows in each table. tests/postgres/state_migrations_test.cpp
-- loads it and checks that this release migrates it and keeps every row.
CREATE TABLE candor_schema_migrations (component text NOT NULL, version integer NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version));
CREATE TABLE candor_evidence_walk(walk TEXT PRIMARY KEY, closed BIGINT NOT NULL, expiry_ms BIGINT NOT NULL);
CREATE TABLE candor_evidence_id(walk TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(walk, id));
CREATE INDEX candor_evidence_walk_expiry ON candor_evidence_walk(expiry_ms);
CREATE TABLE candor_plan_use (nonce TEXT PRIMARY KEY, expiry BIGINT NOT NULL);
CREATE INDEX candor_plan_use_expiry ON candor_plan_use (expiry);
CREATE TABLE candor_repair_counts(repair_key TEXT PRIMARY KEY, failures BIGINT NOT NULL, last_ms BIGINT NOT NULL);
CREATE INDEX candor_repair_counts_last ON candor_repair_counts(last_ms);
INSERT INTO candor_schema_migrations(component, version, name) VALUES ('candor_state', 1, 'evidence, plan ledger, repair counts');
INSERT INTO candor_evidence_walk VALUES ('walk-old', 1, 4102444800000);
INSERT INTO candor_evidence_id VALUES ('walk-old', 't1'), ('walk-old', 't2');
INSERT INTO candor_plan_use VALUES ('nonce-old', 4102444800);
INSERT INTO candor_repair_counts VALUES ('key-old', 2, 4102444800000);
