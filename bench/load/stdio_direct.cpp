// SPDX-License-Identifier: BSL-1.0
// stdio-direct: the load benchmark's workload written by hand, without a framework (row
// `server=direct` in bench/load/run.sh). Not a product and not an MCP server for general use: a
// single-purpose program that gives the measured call the same reply bench-server gives — the
// same envelope fields, the same 20 items, a sealed cursor, the envelope's JSON both as
// content[0].text and as structuredContent — doing only the work that reply needs:
//   - one JSON parse per request (Boost.JSON, into a stack buffer),
//   - the arguments checked by hand (known keys only, the two enums, page_size an integer in
//     1..100, cursor a string),
//   - the same scan over the same 100,000 tickets (std::string comparisons, as bench-server's),
//   - the items written straight into the reply, the cursor sealed with HMAC-SHA-256 (one
//     OpenSSL context, reused) and base64url, the text escaped with Candor's JSON writer (the
//     fastest escaper at hand),
//   - replies to all the requests of one read(2) sent in one write(2), as stdio-floor does.
// It answers `echo {text ≤ 1000 characters}` the same way: a call's cost without the paging work.
// What it does not do is what a framework adds: strict intake (duplicate keys, number ranges,
// depth and size budgets), JSON Schema, typed conversion, sessions, deadlines and cancellation,
// envelope rules, cursor binding to the caller and expiry, journals. Its cost per call is the
// least this workload costs on this machine; bench-server's cost above it is the framework's.
//
//   stdio-direct
#include <candor/json/write.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "../server/tickets.hpp"
#include "write_all.hpp"

namespace {

class hmac {
public:
    hmac() {
        std::array<unsigned char, 32> key{};
        if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1) throw std::runtime_error("RAND_bytes failed");
        EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
        ctx_ = EVP_MAC_CTX_new(mac);
        EVP_MAC_free(mac);
        char digest[] = "SHA256";
        const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
        if (!ctx_ || !EVP_MAC_init(ctx_, key.data(), key.size(), params)) throw std::runtime_error("HMAC setup failed");
    }
    ~hmac() { EVP_MAC_CTX_free(ctx_); }
    hmac(const hmac&) = delete;
    hmac& operator=(const hmac&) = delete;

    std::array<unsigned char, 32> of(std::string_view text) {
        std::array<unsigned char, 32> out{};
        std::size_t len = 0;
        if (!EVP_MAC_init(ctx_, nullptr, 0, nullptr) ||
            !EVP_MAC_update(ctx_, reinterpret_cast<const unsigned char*>(text.data()), text.size()) ||
            !EVP_MAC_final(ctx_, out.data(), &len, out.size()))
            throw std::runtime_error("HMAC failed");
        return out;
    }

private:
    EVP_MAC_CTX* ctx_ = nullptr;
};

void base64url(std::string_view in, std::string& out) {
    static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::size_t i = 0;
    for (; i + 3 <= in.size(); i += 3) {
        const auto v = (static_cast<unsigned>(static_cast<unsigned char>(in[i])) << 16) |
                       (static_cast<unsigned>(static_cast<unsigned char>(in[i + 1])) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
        out += digits[v >> 18], out += digits[(v >> 12) & 63], out += digits[(v >> 6) & 63], out += digits[v & 63];
    }
    if (const std::size_t left = in.size() - i; left > 0) {
        auto v = static_cast<unsigned>(static_cast<unsigned char>(in[i])) << 16;
        if (left == 2) v |= static_cast<unsigned>(static_cast<unsigned char>(in[i + 1])) << 8;
        out += digits[v >> 18], out += digits[(v >> 12) & 63];
        if (left == 2) out += digits[(v >> 6) & 63];
    }
}

constexpr std::array<std::string_view, 8> departments{"dept-0", "dept-1", "dept-2", "dept-3",
                                                      "dept-4", "dept-5", "dept-6", "dept-7"};
constexpr std::array<std::string_view, 3> statuses{"open", "pending", "closed"};

template <std::size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& allowed) {
    for (auto a : allowed)
        if (s == a) return true;
    return false;
}

class server {
public:
    server() : tickets_(make_tickets()) {}

    // Appends the reply to one request line (none for a notification).
    void answer(std::string_view line, std::string& out) {
        std::array<unsigned char, 4096> buffer;
        boost::json::monotonic_resource arena(buffer.data(), buffer.size());
        boost::system::error_code ec;
        const auto v = boost::json::parse(line, ec, &arena);
        const auto* msg = ec ? nullptr : v.if_object();
        const auto* id = msg ? msg->if_contains("id") : nullptr;
        if (!id) return;  // a notification, or nothing to answer to
        const auto* method = msg->if_contains("method");
        out += R"({"jsonrpc":"2.0","id":)";
        out += boost::json::serialize(*id);
        if (method && *method == "initialize") {
            out +=
                R"(,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stdio-direct","version":"1"}}})"
                "\n";
            return;
        }
        const auto* params = msg->if_contains("params");
        const auto* p = params ? params->if_object() : nullptr;
        const auto* name = p ? p->if_contains("name") : nullptr;
        const auto* args = p ? p->if_contains("arguments") : nullptr;
        if (!method || *method != "tools/call" || !name || !(*name == "search_tickets" || *name == "echo") || !args ||
            !args->is_object()) {
            out +=
                R"(,"error":{"code":-32602,"message":"stdio-direct answers tools/call search_tickets and echo only"}})"
                "\n";
            return;
        }
        if (*name == "echo") echo(args->get_object(), out);
        else search(args->get_object(), out);
    }

private:
    void search(const boost::json::object& args, std::string& out) {
        std::optional<std::string_view> department, status;
        std::int64_t page_size = 20;
        for (const auto& kv : args) {
            const auto& v = kv.value();
            if (kv.key() == "department" && v.is_string() && one_of(v.get_string(), departments))
                department = v.get_string();
            else if (kv.key() == "status" && v.is_string() && one_of(v.get_string(), statuses)) status = v.get_string();
            else if (kv.key() == "page_size" && v.is_int64() && v.get_int64() >= 1 && v.get_int64() <= 100)
                page_size = v.get_int64();
            else if (kv.key() == "cursor" && v.is_string()) return refuse("stdio-direct serves first pages only", out);
            else return refuse("invalid argument " + std::string(kv.key()), out);
        }

        // The page's items first (the envelope's head depends on how the scan ends), then the
        // envelope in bench-server's member order, then its text escaped into content[0].text.
        items_.clear();
        std::size_t count = 0;
        std::string_view last;
        bool more = false;
        {
            candor::json::text_sink s(items_);
            for (const auto& t : tickets_) {
                if (department && t.department != *department) continue;
                if (status && t.status != *status) continue;
                if (count == static_cast<std::size_t>(page_size)) {
                    more = true;
                    break;
                }
                s.put(count++ > 0 ? R"(,{"id":)" : R"({"id":)");
                (void)candor::json::write_string(t.id, s);
                s.put(R"(,"department":)");
                (void)candor::json::write_string(t.department, s);
                s.put(R"(,"status":)");
                (void)candor::json::write_string(t.status, s);
                s.put(R"(,"priority":)");
                s.put(std::to_string(t.priority));
                s.put(R"(,"title":)");
                (void)candor::json::write_string(t.title, s);
                s.put(R"(,"created_at":)");
                (void)candor::json::write_string(t.created_at, s);
                s.put("}");
                last = t.id;
            }
        }
        env_.clear();
        if (more) {
            claims_.clear();
            claims_ += R"({"a":)";
            (void)candor::json::write_string(last, claims_);
            claims_ += R"(,"d":)";
            (void)candor::json::write_string(department.value_or(""), claims_);
            claims_ += R"(,"s":)";
            (void)candor::json::write_string(status.value_or(""), claims_);
            claims_ += '}';
            const auto mac = mac_.of(claims_);
            claims_.append(reinterpret_cast<const char*>(mac.data()), mac.size());
            env_ += R"({"status":"partial","complete":false,"incomplete_reasons":[{"code":"MORE_PAGES_AVAILABLE",)"
                    R"("message":"more items follow; call again with continuation.cursor"}],)"
                    R"("continuation":{"kind":"next_cursor","cursor":")";
            base64url(claims_, env_);
            env_ += R"("})";
        } else {
            env_ += R"({"status":"complete","complete":true,"incomplete_reasons":[],"continuation":null)";
        }
        env_ +=
            R"(,"scope":{"resource":"search_tickets","visibility":"anonymous","snapshot":"pinned"},"warnings":[],"data":[)";
        env_ += items_;
        env_ += R"(],"page":{"returned":)";
        env_ += std::to_string(count);
        env_ += R"(,"requested_size":)";
        env_ += std::to_string(page_size);
        env_ += R"(,"ordering":"id","snapshot":"v1"}})";

        send_envelope(out);
    }

    void echo(const boost::json::object& args, std::string& out) {
        const auto* text = args.if_contains("text");
        if (args.size() != 1 || !text || !text->is_string() || text->get_string().size() > 1000)
            return refuse("echo takes {text: a string of at most 1000 characters}", out);
        env_.assign(
            R"({"status":"complete","complete":true,"incomplete_reasons":[],"continuation":null,)"
            R"("scope":{"resource":"echo","visibility":"caller","snapshot":"none"},"warnings":[],"data":{"text":)");
        (void)candor::json::write_string(text->get_string(), env_);
        env_ += "}}";
        send_envelope(out);
    }

    // The envelope in `env_` as the result: its text in content[0].text, and as it is.
    void send_envelope(std::string& out) const {
        out += R"(,"result":{"content":[{"type":"text","text":)";
        (void)candor::json::write_string(env_, out);
        out += R"(}],"structuredContent":)";
        out += env_;
        out += R"(,"isError":false}})"
               "\n";
    }

    static void refuse(const std::string& why, std::string& out) {
        out += R"(,"result":{"content":[{"type":"text","text":)";
        (void)candor::json::write_string(why, out);
        out += R"(}],"isError":true}})"
               "\n";
    }

    std::vector<ticket> tickets_;
    hmac mac_;
    std::string items_, env_, claims_;  // kept from call to call: no buffer grown per call
};

}  // namespace

int main() {
    grow_output_pipe();
    server srv;
    std::string in, out;
    std::array<char, 1 << 16> buffer;
    for (;;) {
        const ssize_t n = ::read(0, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        in.append(buffer.data(), static_cast<std::size_t>(n));
        std::size_t start = 0;
        for (std::size_t end; (end = in.find('\n', start)) != std::string::npos; start = end + 1)
            srv.answer(std::string_view(in).substr(start, end - start), out);
        in.erase(0, start);
        if (!write_all(1, out)) return 1;
        out.clear();
    }
}
