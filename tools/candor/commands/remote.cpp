// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// candor call, walk and tools: an operator's way into any MCP server (a command started over
// stdio, or a Streamable HTTP URL), reading its results as completeness envelopes.
#include "commands/remote.hpp"

#include "commands/input.hpp"

#include <candor/client/oauth.hpp>
#include <candor/client/walk.hpp>
#include <candor/json/intake.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>

#include <spawn.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::cli {

namespace {

namespace cc = candor::client;
namespace net = boost::asio;

constexpr std::string_view server_help = R"(The server, one of:
  --url URL           Streamable HTTP (http://host:port/mcp, or https://)
  --token TOKEN       bearer token for --url (default: $CANDOR_TOKEN)
  --ca-file FILE      the certificate authorities trusted for https (PEM; default: the system's),
                      for the server and the OAuth side requests alike
  -- COMMAND [ARG...] a command to start; it speaks MCP on its standard input and output
  --protocol P        auto (default: probe 2026-07-28, fall back to 2025-11-25), 2026-07-28, 2025-11-25
  --timeout-ms N      each request's time (default 30000)
  --quiet-server      the started command's standard error goes to /dev/null
OAuth, for --url (when the server asks: 401, or 403 insufficient_scope):
  --oauth             authorize: the authorization URL is printed on stderr (and opened with
                      $BROWSER when it is set); the browser comes back to --oauth-redirect
  --oauth-redirect U  the redirect URI listened on: http:// on a loopback address with a port
                      (default http://127.0.0.1:33418/callback)
  --oauth-client-id ID --oauth-issuer ISSUER
                      credentials pre-registered with that authorization server; the secret from
                      $CANDOR_OAUTH_CLIENT_SECRET (none: a public client)
  --oauth-client-metadata-url URL
                      this client's metadata document (https), its client_id where supported
  Otherwise the client registers itself (dynamic registration).
)";

struct common {
    cc::endpoint where;
    bool oauth = false;
    cc::oauth_options oauth_options;
    cc::session_options options;
    std::vector<std::string> positional;
    bool json = false, items = false;
    cc::walk_budget budget;
};

int usage_error(std::string_view command, std::string_view message) {
    std::cerr << "candor " << command << ": " << message << "\n(see 'candor " << command << " --help')\n";
    return 2;
}

// Parses the options all three commands share, and the ones `walk` adds; nothing on a usage error
// (said on stderr), or the exit status of --help in `exit_now`.
std::optional<common> parse(std::string_view command, std::string_view help, int argc, char** argv, int& exit_now) {
    common c;
    c.options.client_name = "candor-cli";
    if (const char* t = std::getenv("CANDOR_TOKEN")) c.where.bearer_token = t;
    std::string url;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto value = [&]() -> std::optional<std::string_view> {
            if (i + 1 >= argc) return std::nullopt;
            return std::string_view(argv[++i]);
        };
        const auto size = [&](std::size_t& slot) {
            auto v = value();
            auto n = v ? parse_size(*v) : std::nullopt;
            if (n) slot = *n;
            return n.has_value();
        };
        if (arg == "--help" || arg == "-h") {
            std::cout << help << '\n' << server_help;
            exit_now = 0;
            return std::nullopt;
        }
        if (arg == "--") {
            for (++i; i < argc; ++i) c.where.command.emplace_back(argv[i]);
            break;
        }
        bool ok = true;
        if (arg == "--url") {
            auto v = value();
            ok = v.has_value();
            if (ok) url = std::string(*v);
        } else if (arg == "--ca-file") {
            auto v = value();
            ok = v && !v->empty();
            if (ok) c.where.ca_file = c.oauth_options.fetch.ca_file = std::string(*v);
        } else if (arg == "--token") {
            auto v = value();
            ok = v.has_value();
            if (ok) c.where.bearer_token = std::string(*v);
        } else if (arg == "--protocol") {
            auto v = value();
            ok = v && (*v == "auto" || *v == "2026-07-28" || *v == "2025-11-25");
            if (ok)
                c.options.protocol = *v == "auto"         ? cc::era::automatic
                                     : *v == "2026-07-28" ? cc::era::modern
                                                          : cc::era::legacy;
        } else if (arg == "--timeout-ms") {
            std::size_t ms = 0;
            ok = size(ms) && ms > 0;
            c.options.request_timeout = std::chrono::milliseconds(ms);
        } else if (arg == "--quiet-server") {
            c.where.discard_stderr = true;
        } else if (arg == "--oauth") {
            c.oauth = true;
        } else if (arg == "--oauth-redirect" || arg == "--oauth-client-id" || arg == "--oauth-issuer" ||
                   arg == "--oauth-client-metadata-url") {
            auto v = value();
            ok = v && !v->empty();
            if (ok) {
                c.oauth = true;
                std::string text(*v);
                if (arg == "--oauth-redirect") c.oauth_options.redirect_uri = text;
                else if (arg == "--oauth-client-metadata-url") c.oauth_options.client_metadata_url = text;
                else if (c.oauth_options.preregistered.empty()) c.oauth_options.preregistered.emplace_back();
                if (arg == "--oauth-client-id") c.oauth_options.preregistered.front().client_id = text;
                if (arg == "--oauth-issuer") c.oauth_options.preregistered.front().issuer = text;
            }
        } else if (command == "walk" && arg == "--max-calls") {
            ok = size(c.budget.max_calls) && c.budget.max_calls > 0;
        } else if (command == "walk" && arg == "--max-items") {
            ok = size(c.budget.max_items) && c.budget.max_items > 0;
        } else if (command == "walk" && arg == "--deadline-ms") {
            std::size_t ms = 0;
            ok = size(ms) && ms > 0;
            c.budget.deadline = std::chrono::milliseconds(ms);
        } else if (command == "walk" && arg == "--json") {
            c.json = true;
        } else if (command == "walk" && arg == "--items") {
            c.items = true;
        } else if (arg.size() > 1 && arg.front() == '-') {
            exit_now = usage_error(command, "unknown option " + std::string(arg));
            return std::nullopt;
        } else {
            c.positional.emplace_back(arg);
            continue;
        }
        if (!ok) {
            exit_now = usage_error(command, "a missing or wrong value for " + std::string(arg));
            return std::nullopt;
        }
    }
    if (url.empty() == c.where.command.empty()) {
        exit_now = usage_error(command, "name the server: --url URL, or -- COMMAND [ARG...]");
        return std::nullopt;
    }
    c.where.url = std::move(url);
    if (c.oauth) {
        if (c.where.url.empty()) {
            exit_now = usage_error(command, "--oauth is for a server at a --url");
            return std::nullopt;
        }
        auto& pre = c.oauth_options.preregistered;
        if (!pre.empty() && (pre.front().client_id.empty() || pre.front().issuer.empty())) {
            exit_now = usage_error(command, "--oauth-client-id and --oauth-issuer go together");
            return std::nullopt;
        }
        if (const char* secret = std::getenv("CANDOR_OAUTH_CLIENT_SECRET"); secret && !pre.empty())
            pre.front().client_secret = secret;
        c.oauth_options.client_name = "candor-cli";
    }
    return c;
}

// Shows the authorization URL: on stderr, and in $BROWSER when it is set (not waited for).
void show_authorization(const std::string& url) {
    // One write: a reader of the pipe gets the line whole.
    std::cerr << ("candor: to authorize, open " + url + "\n") << std::flush;
    if (const char* browser = std::getenv("BROWSER"); browser && *browser) {
        std::string b(browser), u(url);
        char* argv[] = {b.data(), u.data(), nullptr};
        pid_t pid = 0;
        if (::posix_spawnp(&pid, browser, nullptr, nullptr, argv, environ) != 0)
            std::cerr << "candor: could not start $BROWSER (" << browser << ")\n";
    }
}

// The tool's arguments: a JSON object, read strictly.
std::optional<boost::json::object> arguments_of(std::string_view command, const common& c, std::size_t at,
                                                int& status) {
    if (c.positional.size() <= at) return boost::json::object{};
    auto doc = json::parse(c.positional[at]);
    if (!doc || !doc->root().is_object()) {
        status = usage_error(
            command, "the arguments must be one JSON object" + (doc ? std::string() : ": " + doc.error().message));
        return std::nullopt;
    }
    return json::detach(doc->root()).as_object();
}

void print_error(std::string_view command, const cc::client_error& e) {
    std::cerr << "candor " << command << ": " << e.code << ": " << e.message;
    if (!e.detail.empty()) std::cerr << " (" << e.detail << ")";
    if (e.rpc_code) std::cerr << " [JSON-RPC " << *e.rpc_code << "]";
    std::cerr << '\n';
}

// Runs `work` on a session with the server; the exit status it returns, or 3 without a session.
template <class Work>
int with_session(std::string_view command, common& c, Work work) {
    if (c.oauth) {
        c.oauth_options.authorize = cc::loopback_authorization(c.oauth_options.redirect_uri, show_authorization);
        auto made = cc::oauth_client::create(c.oauth_options);
        if (!made) {
            print_error(command, made.error());
            return 2;
        }
        c.where.oauth = *made;
    }
    net::io_context ioc;
    int status = 3;
    net::co_spawn(
        ioc,
        [&]() -> net::awaitable<void> {
            auto s = co_await cc::session::open(ioc.get_executor(), c.where, c.options);
            if (!s) {
                print_error(command, s.error());
                co_return;
            }
            status = co_await work(**s);
            co_await (*s)->close();
        },
        net::detached);
    ioc.run();
    return status;
}

std::string entries_line(const std::vector<cc::entry>& entries) {
    if (entries.empty()) return "none";
    std::string out;
    for (const auto& e : entries) {
        if (!out.empty()) out += "; ";
        out += e.code;
        if (const auto* pages = e.fields.if_contains("pages"); pages && pages->is_int64() && pages->get_int64() > 1)
            out += " (" + std::to_string(pages->get_int64()) + " pages)";
        if (!e.message.empty()) out += ": " + e.message;
    }
    return out;
}

boost::json::array entries_json(const std::vector<cc::entry>& entries) {
    boost::json::array out;
    for (const auto& e : entries) out.push_back(e.fields);
    return out;
}

constexpr std::string_view call_help = R"(usage: candor call SERVER TOOL [ARGUMENTS]

Calls TOOL with ARGUMENTS (one JSON object; default {}) and prints the result as one line of JSON.
Exit status: 0 a result, 1 a tool error (isError), 2 usage error, 3 no answer (said on stderr).
)";

constexpr std::string_view walk_help =
    R"(usage: candor walk SERVER [--max-calls N] [--max-items N] [--deadline-ms N] [--json] [--items] TOOL [ARGUMENTS]

Calls TOOL with ARGUMENTS (one JSON object without a cursor; default {}), follows every
next_cursor to the end of the walk or of its budget, and prints what the walk establishes:
the pages and items read, whether it is complete (only then is the absence of an item evidence
that it does not exist), every reason met on the way, the warnings, where it can go on.
  --max-calls N     calls at most (default 100)
  --max-items N     stop after the page that reached N items (default 100000)
  --deadline-ms N   stop when the walk has taken this long (default 300000)
  --json            the summary as one line of JSON
  --items           every item as one line of JSON on stdout (the summary goes to stderr)
Exit status: 0 complete, 1 not complete, 2 usage error, 3 no session.
)";

constexpr std::string_view tools_help = R"(usage: candor tools SERVER

Prints the revision agreed with the server, then each tool's name and description.
Exit status: 0, 2 usage error, 3 no answer.
)";

}  // namespace

int run_call(int argc, char** argv) {
    int status = 2;
    auto c = parse("call", call_help, argc, argv, status);
    if (!c) return status;
    if (c->positional.empty() || c->positional.size() > 2) return usage_error("call", "expected TOOL [ARGUMENTS]");
    auto args = arguments_of("call", *c, 1, status);
    if (!args) return status;
    return with_session("call", *c, [&](cc::session& s) -> net::awaitable<int> {
        auto r = co_await s.call_tool(c->positional[0], std::move(*args));
        if (!r) {
            print_error("call", r.error());
            co_return 3;
        }
        std::cout << boost::json::serialize(r->raw) << '\n';
        co_return r->is_error ? 1 : 0;
    });
}

int run_walk(int argc, char** argv) {
    int status = 2;
    auto c = parse("walk", walk_help, argc, argv, status);
    if (!c) return status;
    if (c->positional.empty() || c->positional.size() > 2) return usage_error("walk", "expected TOOL [ARGUMENTS]");
    auto args = arguments_of("walk", *c, 1, status);
    if (!args) return status;
    return with_session("walk", *c, [&](cc::session& s) -> net::awaitable<int> {
        auto w = co_await cc::collect(s, c->positional[0], std::move(*args), c->budget);
        auto& summary_out = c->items ? std::cerr : std::cout;
        if (c->items)
            for (const auto& item : w.items) std::cout << boost::json::serialize(item) << '\n';
        if (c->json) {
            boost::json::object o;
            o["tool"] = c->positional[0];
            o["complete"] = w.complete;
            o["calls"] = w.calls;
            o["items"] = w.items.size();
            o["reasons"] = entries_json(w.reasons);
            o["warnings"] = entries_json(w.warnings);
            o["resume_cursor"] = w.resume_cursor.empty() ? boost::json::value() : boost::json::value(w.resume_cursor);
            o["snapshot_token"] =
                w.snapshot_token.empty() ? boost::json::value() : boost::json::value(w.snapshot_token);
            o["next"] = agent::to_string(w.next);
            summary_out << boost::json::serialize(o) << '\n';
        } else {
            summary_out << "walk of " << c->positional[0] << " (" << s.protocol_version() << "): " << w.calls
                        << (w.calls == 1 ? " call, " : " calls, ") << w.items.size() << " items\n"
                        << (w.complete ? "COMPLETE: every page read; an item not among them does not exist\n"
                                       : "NOT COMPLETE: an item not among them may still exist\n")
                        << "reasons: " << entries_line(w.reasons) << '\n'
                        << "warnings: " << entries_line(w.warnings) << '\n';
            if (!w.resume_cursor.empty()) summary_out << "resume with cursor: " << w.resume_cursor << '\n';
            if (w.complete && !w.snapshot_token.empty()) summary_out << "snapshot token: " << w.snapshot_token << '\n';
            summary_out << "next: " << agent::to_string(w.next) << '\n';
        }
        co_return w.complete ? 0 : 1;
    });
}

int run_tools(int argc, char** argv) {
    int status = 2;
    auto c = parse("tools", tools_help, argc, argv, status);
    if (!c) return status;
    if (!c->positional.empty()) return usage_error("tools", "expected no arguments besides the server");
    return with_session("tools", *c, [&](cc::session& s) -> net::awaitable<int> {
        auto tools = co_await s.list_tools();
        if (!tools) {
            print_error("tools", tools.error());
            co_return 3;
        }
        std::cout << "protocol " << s.protocol_version() << ", " << tools->size() << " tools\n";
        for (const auto& t : *tools) {
            const auto* name = t.if_contains("name");
            const auto* description = t.if_contains("description");
            std::cout << (name && name->is_string() ? std::string(name->get_string()) : "?");
            if (description && description->is_string()) std::cout << "\t" << std::string(description->get_string());
            std::cout << '\n';
        }
        co_return 0;
    });
}

}  // namespace candor::cli
