// SPDX-License-Identifier: BSL-1.0
#include <candor/state/command_line.hpp>

#include <candor/state/sql_event_log.hpp>
#include <candor/state/sql_evidence_store.hpp>
#include <candor/state/sql_notice_feed.hpp>
#include <candor/state/sql_repair_counts.hpp>
#include <candor/state/sql_session_records.hpp>
#include <candor/state/sql_task_table.hpp>

#include <cstdlib>

namespace candor::state {

std::vector<app::extra_option> command_line::flags() {
    return {{"--state", "URL",
             "shared state (evidence, plan tokens, repair counts, HTTP sessions and events): postgres://… for "
             "replicas, or a SQLite path; "
             "default $CANDOR_STATE_URL",
             [this](std::string_view v) {
                 if (v.empty()) return app::refuse("--state needs a URL or a path");
                 url_ = std::string(v);
                 return true;
             }}};
}

std::string command_line::help() const { return {}; }

std::string command_line::check(bool) {
    if (url_.empty())
        if (const char* e = std::getenv("CANDOR_STATE_URL"); e && *e) url_ = e;
    return {};
}

boost::system::result<state::opened_database, store::db_error> command_line::open(const std::string& fallback) {
    if (opened_) return *opened_;
    const std::string& url = url_.empty() ? fallback : url_;
    if (url.empty()) return store::db_error{"no state database: give --state URL or set CANDOR_STATE_URL"};
    auto r = state::open_url(url);
    if (!r) return store::db_error{"cannot open the state database '" + redacted_url(url) + "': " + r.error().message};
    worker_ = std::make_shared<offload::worker>(state::is_postgres_url(url) ? 4 : 1);
    opened_ = *r;
    return *opened_;
}

boost::system::result<server_state, store::db_error> command_line::open_state(const std::string& fallback) {
    auto db = open(fallback);
    if (!db) return db.error();
    return make_stores(*db);
}

boost::system::result<server_state, store::db_error> command_line::open_state(const opened_database& fallback) {
    if (!url_.empty()) return open_state(std::string());
    return make_stores(fallback);
}

boost::system::result<server_state, store::db_error> command_line::make_stores(opened_database db) {
    const auto failed = [](std::string_view what, const store::db_error& e) {
        return store::db_error{"cannot open the " + std::string(what) + " in the state database: " + e.message};
    };
    server_state out;
    out.worker = worker_ ? worker_ : std::make_shared<offload::worker>(db.pool ? 4 : 1);
    out.database = std::move(db);
    const auto& sql = out.database.db;
    auto evidence = open_sql_store(sql, out.worker);
    if (!evidence) return failed("evidence store", evidence.error());
    out.evidence = *evidence;
    auto plans = sql_plan_ledger::open(sql, out.worker);
    if (!plans) return failed("plan ledger", plans.error());
    out.plans = *plans;
    auto counts = sql_repair_counts::open(sql, out.worker);
    if (!counts) return failed("repair counts", counts.error());
    out.repair_counts = *counts;
    auto tasks = sql_task_table::open(sql, out.worker);
    if (!tasks) return failed("task table", tasks.error());
    out.tasks = *tasks;
    auto notices = sql_notice_feed::open(sql, out.worker);
    if (!notices) return failed("notice feed", notices.error());
    out.notices = *notices;
    auto sessions = sql_session_records::open(sql);
    if (!sessions) return failed("session records", sessions.error());
    out.sessions = *sessions;
    auto events = sql_event_log::open(sql);
    if (!events) return failed("event log", events.error());
    out.events = *events;
    if (http_) {
        auto& o = http_->http_options();
        o.shared_sessions = out.sessions;
        o.shared_sessions_worker = out.worker;
        o.event_log = out.events;
        o.event_log_worker = out.worker;
    }
    return out;
}

}  // namespace candor::state
