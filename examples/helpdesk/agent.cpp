// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// helpdesk-agent: a scripted agent session with the helpdesk on candor::client — what an agent
// sees when it pages through tickets, inventories service accounts and archives some, repairs
// an order draft, searches three sources at once, reads results cut to their budget, and walks
// a table another program is writing. The session `scripts/demo` plays.
//
//   helpdesk-agent HELPDESK DB                    over stdio: one helpdesk process per principal
//   helpdesk-agent --http URL ADMIN_TOKEN TEAM_A_TOKEN   a running helpdesk --tokens
//
// Each step prints the call and what the envelope says (status, completeness, reasons, codes),
// with cursors and tokens shortened. The session uses the client's blocking form below: each
// call runs the io_context until its answer.
#include <candor/client/walk.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace {

namespace cc = candor::client;
namespace net = boost::asio;
using boost::json::array;
using boost::json::object;
using boost::json::value;

// Runs one client operation to its end.
template <class T>
T run(net::io_context& io, net::awaitable<T> op) {
    std::optional<T> out;
    std::exception_ptr failure;
    net::co_spawn(io, std::move(op), [&](std::exception_ptr e, T v) {
        failure = e;
        if (!e) out.emplace(std::move(v));
    });
    io.restart();
    io.run();
    if (failure) std::rethrow_exception(failure);
    return std::move(*out);
}

inline void run(net::io_context& io, net::awaitable<void> op) {
    std::exception_ptr failure;
    net::co_spawn(io, std::move(op), [&](std::exception_ptr e) { failure = e; });
    io.restart();
    io.run();
    if (failure) std::rethrow_exception(failure);
}

struct options {
    bool http = false;
    std::string helpdesk, db, url, admin_token, team_token;
};

class agent {
public:
    agent(net::io_context& io, const options& o, const std::string& principal) : io_(io) {
        cc::endpoint where;
        if (o.http) {
            where = cc::endpoint::of_url(o.url, principal == "admin" ? o.admin_token : o.team_token);
        } else {
            where = cc::endpoint::of_command({o.helpdesk, "--stdio", "--db", o.db});
            where.environment.push_back("CANDOR_PRINCIPAL=" + principal);
            where.discard_stderr = true;
        }
        auto s = run(io_, cc::session::open(io_.get_executor(), where, cc::session_options()));
        if (!s)
            throw std::runtime_error("cannot open a session for " + principal + ": " + s.error().code + ": " +
                                     s.error().message);
        session_ = std::move(*s);
    }
    ~agent() { run(io_, session_->close()); }

    // The envelope of a call (its structured content).
    value call(const std::string& tool, object arguments, object meta = {}) {
        auto r = run(io_, session_->call_tool(tool, std::move(arguments), std::move(meta)));
        if (!r) throw std::runtime_error(tool + ": " + r.error().code + ": " + r.error().message);
        return r->structured;
    }

    cc::walk_result walk(const std::string& tool, object arguments, std::size_t max_calls) {
        cc::walk_budget budget;
        budget.max_calls = max_calls;
        return run(io_, cc::collect(*session_, tool, std::move(arguments), budget));
    }

private:
    net::io_context& io_;
    std::unique_ptr<cc::session> session_;
};

std::string shortened(const value& v) {
    if (!v.is_string()) return "";
    const std::string s(v.as_string());
    return s.size() > 16 ? s.substr(0, 16) + "…" : s;
}

// Entries with their codes and details (what an agent routes on); reasons and warnings without
// their messages, errors with them.
array codes_of(const value& entries, bool keep_messages = false) {
    array out;
    if (!entries.is_array()) return out;
    for (const auto& e : entries.as_array()) {
        if (!e.is_object()) continue;
        object o = e.as_object();
        if (!keep_messages) o.erase("message");
        if (o.contains("plan_token")) o["plan_token"] = shortened(o["plan_token"]);
        out.push_back(std::move(o));
    }
    return out;
}

void show(const std::string& label, const value& args, const value& env, object extra = {}) {
    std::cout << "\n> " << label << " " << boost::json::serialize(args) << "\n";
    object summary;
    const auto* e = env.if_object();
    if (!e) {
        std::cout << "(not an envelope)\n";
        return;
    }
    for (const char* key : {"status", "complete"})
        if (const auto* v = e->if_contains(key)) summary[key] = *v;
    if (const auto* r = e->if_contains("incomplete_reasons"); r && r->is_array() && !r->as_array().empty())
        summary["incomplete_reasons"] = codes_of(*r);
    if (const auto* w = e->if_contains("warnings"); w && w->is_array() && !w->as_array().empty())
        summary["warnings"] = codes_of(*w);
    if (const auto* x = e->if_contains("errors"); x && x->is_array()) summary["errors"] = codes_of(*x, true);
    for (auto& [k, v] : extra) summary[k] = v;
    if (const auto* c = e->if_contains("continuation"); c && c->is_object()) {
        object cont = c->as_object();
        if (cont.contains("cursor")) cont["cursor"] = shortened(cont["cursor"]);
        summary["continuation"] = std::move(cont);
    }
    if (const auto* t = e->if_contains("snapshot_token")) summary["snapshot_token"] = shortened(*t);
    std::cout << boost::json::serialize(summary) << "\n";
}

object parse(std::string_view json) { return boost::json::parse(json).as_object(); }

array ids_of(const value& env, std::size_t at_most = SIZE_MAX) {
    array out;
    if (const auto* data = env.as_object().if_contains("data"); data && data->is_array())
        for (const auto& item : data->as_array())
            if (out.size() < at_most) out.push_back(item.at("id"));
    return out;
}

std::size_t size_of(const value& env) {
    const auto* data = env.as_object().if_contains("data");
    return data && data->is_array() ? data->as_array().size() : 0;
}

// A line of another program's output, or nothing at its end.
std::optional<std::string> line_of(std::FILE* f) {
    std::string out;
    for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) {
        if (c == '\n') return out;
        out += static_cast<char>(c);
    }
    if (out.empty()) return std::nullopt;
    return out;
}

void session(const options& o) {
    net::io_context io;
    agent admin(io, o, "admin");

    auto args = parse(R"({"filter": {"and": [{"department": "dept-3"}, {"status": "open"}]}, "page_size": 5})");
    auto env = admin.call("search_tickets", args);
    show("admin: search_tickets", args, env, {{"ids", ids_of(env)}, {"page", env.at("page")}});

    args = parse(R"({"filter": {"and": [{"department": "dept-3"}, {"stat": "open"}]}})");
    env = admin.call("search_tickets", args);
    show("admin: search_tickets (a typo in the filter)", args, env);

    {
        agent team_a(io, o, "team-a");
        env = team_a.call("find_unowned_accounts", {});
        show("team-a: find_unowned_accounts", object{}, env, {{"accounts", size_of(env)}});
        args = object{{"ids", array{"svc-014"}}, {"snapshot_token", env.at("snapshot_token")}};
        env = team_a.call("archive_service_accounts", args);
        show("team-a: archive_service_accounts", parse(R"({"ids": ["svc-014"], "snapshot_token": "<team-a's token>"})"),
             env);
    }

    // The inventory, walked by the client: complete, so its token is evidence.
    auto inventory = admin.walk("list_service_accounts", {}, 100);
    std::cout << "\n> admin: list_service_accounts, every page (candor::client::collect)\n"
              << boost::json::serialize(object{{"calls", inventory.calls},
                                               {"accounts", inventory.items.size()},
                                               {"complete", inventory.complete},
                                               {"next", candor::agent::to_string(inventory.next)}})
              << "\n";

    env = admin.call("find_unowned_accounts", {});
    const value token = env.at("snapshot_token");
    show("admin: find_unowned_accounts", object{}, env, {{"accounts", size_of(env)}, {"first", ids_of(env, 3)}});

    std::string tampered(token.as_string());
    tampered[20] = tampered[20] == 'x' ? 'y' : 'x';
    env = admin.call("archive_service_accounts",
                     object{{"ids", array{"svc-007", "svc-014"}}, {"snapshot_token", tampered}});
    show("admin: archive_service_accounts",
         parse(R"({"ids": ["svc-007", "svc-014"], "snapshot_token": "<one character changed>"})"), env);

    env =
        admin.call("archive_service_accounts", object{{"ids", array{"svc-007", "svc-001"}}, {"snapshot_token", token}});
    show("admin: archive_service_accounts",
         parse(R"({"ids": ["svc-007", "svc-001"], "snapshot_token": "<admin's token>"})"), env);

    args = object{{"ids", array{"svc-007", "svc-014"}}, {"snapshot_token", token}};
    const auto shown = parse(R"({"ids": ["svc-007", "svc-014"], "snapshot_token": "<admin's token>"})");
    env = admin.call("archive_service_accounts", args);
    show("admin: archive_service_accounts", shown, env);
    // This client does not elicit, so approval is two steps: the user reads the plan above and
    // says yes.
    const value plan_token = env.at("errors").at(0).at("plan_token");
    auto approved = args;
    approved["plan_token"] = plan_token;
    auto shown_approved = shown;
    shown_approved["plan_token"] = "<the plan's token>";
    env = admin.call("archive_service_accounts", approved);
    show("admin: archive_service_accounts (the user approved the plan)", shown_approved, env,
         {{"data", env.at("data")}});
    env = admin.call("archive_service_accounts", approved);
    show("admin: archive_service_accounts (the same plan_token again)", shown_approved, env);
    // svc-007 once more, approved: it is checked again when it is archived, and skipped.
    auto once_more = object{{"ids", array{"svc-007"}}, {"snapshot_token", token}};
    env = admin.call("archive_service_accounts", once_more);
    once_more["plan_token"] = env.at("errors").at(0).at("plan_token");
    env = admin.call("archive_service_accounts", once_more);
    show("admin: archive_service_accounts (svc-007 again, approved)",
         parse(R"({"ids": ["svc-007"], "snapshot_token": "<admin's token>", "plan_token": "<its plan's token>"})"), env,
         {{"data", env.at("data")}});

    auto order = parse(R"({"customer_id": "cust-3", "currency": "USD", "delivery_date": "2099-12-01", "discount": 0,
                           "total": 8, "lines": [{"sku": "SKU-003", "quantity": 2, "unit_price": 4}]})");
    env = admin.call("create_order_draft", order);
    show("admin: create_order_draft (a stale unit price)", order, env,
         {{"data", env.as_object().contains("data") ? env.at("data") : value()}});
    order["customer_id"] = "cust-blocked";
    order["lines"] = parse(R"({"l": [{"sku": "SKU-3", "quantity": 2, "unit_price": 4}]})").at("l");
    env = admin.call("create_order_draft", order);
    show("admin: create_order_draft", order, env);

    args = parse(R"({"query": "printer"})");
    env = admin.call("search_everywhere", args);
    object found;
    if (const auto* data = env.as_object().if_contains("data"); data && data->is_object())
        for (const auto& [source, items] : data->as_object())
            found[source] = items.is_array() ? items.as_array().size() : 0;
    show("admin: search_everywhere", args, env, {{"found", found}});

    // Results that fit the reader: a page ends at the last whole ticket within the byte budget.
    args = parse(R"({"filter": {"department": "dept-3"}, "page_size": 100})");
    env = admin.call("search_tickets", args);
    show("admin: search_tickets (results of 24,000 bytes at most)", args, env, {{"returned", size_of(env)}});
    args = parse(R"({"filter": {"department": "dept-3"}, "page_size": 100, "fields": ["id", "title", "status"]})");
    env = admin.call("search_tickets", args);
    show("admin: search_tickets (fewer fields)", args, env, {{"returned", size_of(env)}});
    args = parse(R"({"id": "kb-009"})");
    env = admin.call("read_article", args, parse(R"({"io.candor/maxResultBytes": 6000})"));
    show("admin: read_article (a long article, 6,000 bytes at most)", args, env,
         {{"body_bytes", env.at("data").at("body").as_string().size()}, {"length", env.at("data").at("length")}});

    if (o.http) return;
    // A table the helpdesk does not own: helpdesk-writer changes customers with plain SQL while
    // the client walks them; the walk still reads one snapshot (stdio only: the writer needs the
    // database's path).
    const auto writer = (std::filesystem::path(o.helpdesk).parent_path() / "helpdesk-writer").string();
    std::FILE* w = ::popen((writer + " --db '" + o.db + "' --changes 2000 --every-ms 1").c_str(), "r");
    if (!w) throw std::runtime_error("cannot start helpdesk-writer");
    std::string said;
    while (auto l = line_of(w)) {
        said = *l;
        if (said == "writing") break;
    }
    const auto during = admin.walk("search_customers", parse(R"({"page_size": 100})"), 100);
    while (auto l = line_of(w)) said = *l;
    ::pclose(w);
    const auto after = admin.walk("search_customers", parse(R"({"page_size": 100})"), 100);
    std::set<std::string> distinct;
    for (const auto& c : during.items) distinct.insert(std::string(c.at("id").as_string()));
    std::cout << "\n> admin: search_customers, every page, while helpdesk-writer changes customers with plain SQL\n"
              << boost::json::serialize(object{{"complete", during.complete},
                                               {"calls", during.calls},
                                               {"customers", during.items.size()},
                                               {"distinct", distinct.size()},
                                               {"writer", said},
                                               {"walked_again", after.items.size()},
                                               {"snapshot_token", shortened(value(after.snapshot_token))}})
              << "\n";

    // Acting on what the walk found: another program renames one of three customers first, and
    // that one is skipped (TARGET_CHANGED): nobody saw it as it is now.
    array picked;
    for (const auto& c : after.items) {
        const std::string id(c.at("id").as_string());
        if (picked.size() < 3 && id.rfind("cust-", 0) == 0 &&
            id.find_first_not_of("0123456789", 5) == std::string::npos)
            picked.push_back(value(id));
    }
    if (picked.size() < 3) throw std::runtime_error("fewer than three customers to suspend");
    const std::string renamed(picked[1].as_string());
    if (std::system((writer + " --db '" + o.db + "' --rename " + renamed + " >/dev/null").c_str()) != 0)
        throw std::runtime_error("helpdesk-writer --rename failed");
    env = admin.call("suspend_customers", object{{"ids", picked}, {"snapshot_token", after.snapshot_token}});
    show("admin: suspend_customers (after another program renamed " + renamed + ")",
         object{{"ids", picked}, {"snapshot_token", "<the last walk's token>"}}, env, {{"data", env.at("data")}});
}

}  // namespace

int main(int argc, char** argv) {
    options o;
    if (argc == 3) {
        o.helpdesk = argv[1];
        o.db = argv[2];
    } else if (argc == 5 && std::string_view(argv[1]) == "--http") {
        o.http = true;
        o.url = argv[2];
        o.admin_token = argv[3];
        o.team_token = argv[4];
    } else {
        std::cerr << "usage: helpdesk-agent HELPDESK DB | helpdesk-agent --http URL ADMIN_TOKEN TEAM_A_TOKEN\n";
        return 2;
    }
    try {
        session(o);
    } catch (const std::exception& e) {
        std::cerr << "helpdesk-agent: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
