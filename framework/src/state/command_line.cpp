// SPDX-License-Identifier: BSL-1.0
#include <candor/state/command_line.hpp>

#include <cstdlib>

namespace candor::state {

std::vector<app::extra_option> command_line::flags() {
    return {{"--state", "URL",
             "shared state (evidence, plan tokens, repair counts): postgres://… for replicas, or a SQLite path; "
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
    if (!r) return r.error();
    worker_ = std::make_shared<offload::worker>(state::is_postgres_url(url) ? 4 : 1);
    opened_ = *r;
    return *opened_;
}

}  // namespace candor::state
