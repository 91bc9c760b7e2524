// SPDX-License-Identifier: BSL-1.0
// https: the client speaks to a server behind TLS (a terminating proxy in the test, with a
// certificate made here for "localhost") on either revision, the 2025-11-25 listening stream
// included; a certificate it does not trust, or one that does not name the host, is no session.
#include "client/client_support.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace candor::test {
namespace {

using boost::json::object;
namespace ssl = net::ssl;

// A self-signed certificate for DNS name "localhost" (no IP address), and its key, in PEM.
struct certificate {
    std::string cert_pem, key_pem;

    certificate() {
        EVP_PKEY* key = EVP_EC_gen("P-256");
        X509* x = X509_new();
        ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
        X509_gmtime_adj(X509_getm_notBefore(x), -60);
        X509_gmtime_adj(X509_getm_notAfter(x), 3600);
        X509_set_pubkey(x, key);
        X509_NAME* name = X509_get_subject_name(x);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1,
                                   -1, 0);
        X509_set_issuer_name(x, name);
        X509V3_CTX ctx;
        X509V3_set_ctx_nodb(&ctx);
        X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
        for (const auto& [nid, value] :
             {std::pair{NID_subject_alt_name, "DNS:localhost"}, std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
            X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
            X509_add_ext(x, ext, -1);
            X509_EXTENSION_free(ext);
        }
        X509_sign(x, key, EVP_sha256());
        cert_pem = pem([&](BIO* b) { PEM_write_bio_X509(b, x); });
        key_pem = pem([&](BIO* b) { PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr); });
        X509_free(x);
        EVP_PKEY_free(key);
    }

    template <class Write>
    static std::string pem(Write write) {
        BIO* b = BIO_new(BIO_s_mem());
        write(b);
        char* data = nullptr;
        const long n = BIO_get_mem_data(b, &data);
        std::string out(data, static_cast<std::size_t>(n));
        BIO_free(b);
        return out;
    }
};

// TLS in front of a plain HTTP server: each connection's handshake, then its bytes both ways.
class tls_proxy {
public:
    tls_proxy(const certificate& c, unsigned short upstream)
        : upstream_(upstream), acceptor_(ioc_, {net::ip::make_address("127.0.0.1"), 0}) {
        tls_.use_certificate_chain(net::buffer(c.cert_pem));
        tls_.use_private_key(net::buffer(c.key_pem), ssl::context::pem);
        net::co_spawn(ioc_, accept_loop(), net::detached);
        thread_ = std::thread([this] { ioc_.run(); });
    }
    ~tls_proxy() {
        ioc_.stop();
        thread_.join();
    }
    unsigned short port() const { return acceptor_.local_endpoint().port(); }

private:
    using tls_stream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
    static constexpr auto tuple = net::as_tuple(net::use_awaitable);

    net::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, socket] = co_await acceptor_.async_accept(tuple);
            if (ec) co_return;
            net::co_spawn(ioc_, serve(std::move(socket)), net::detached);
        }
    }
    net::awaitable<void> serve(net::ip::tcp::socket socket) {
        auto client = std::make_shared<tls_stream>(boost::beast::tcp_stream(std::move(socket)), tls_);
        auto [hec] = co_await client->async_handshake(ssl::stream_base::server, tuple);
        if (hec) co_return;
        auto server = std::make_shared<net::ip::tcp::socket>(ioc_);
        auto [cec] = co_await server->async_connect({net::ip::make_address("127.0.0.1"), upstream_}, tuple);
        if (cec) co_return;
        net::co_spawn(ioc_, pump(client, server, true), net::detached);
        co_await pump(client, server, false);
    }
    // One direction: from the client to the server, or back.
    static net::awaitable<void> pump(std::shared_ptr<tls_stream> client, std::shared_ptr<net::ip::tcp::socket> server,
                                     bool upward) {
        std::array<char, 16384> buf{};
        for (;;) {
            auto [rec, n] = upward ? co_await client->async_read_some(net::buffer(buf), tuple)
                                   : co_await server->async_read_some(net::buffer(buf), tuple);
            if (rec) break;
            auto [wec, m] = upward ? co_await net::async_write(*server, net::buffer(buf.data(), n), tuple)
                                   : co_await net::async_write(*client, net::buffer(buf.data(), n), tuple);
            if (wec) break;
        }
        boost::system::error_code ignored;
        server->close(ignored);
        boost::beast::get_lowest_layer(*client).close();
    }

    unsigned short upstream_;
    net::io_context ioc_;
    ssl::context tls_{ssl::context::tls_server};
    net::ip::tcp::acceptor acceptor_;
    std::thread thread_;
};

struct ClientTls : ::testing::Test {
    certificate cert;
    mcp::server srv{mcp::server_options{.name = "tls", .log = {}}};
    std::unique_ptr<transport::http_server> http;
    std::unique_ptr<tls_proxy> proxy;
    std::string ca =
        (std::filesystem::temp_directory_path() / ("candor-ca-" + std::to_string(::getpid()) + ".pem")).string();

    ClientTls() {
        add_echo(srv);
        transport::http_options h;
        h.threads = 1;
        http = std::make_unique<transport::http_server>(srv, std::move(h));
        EXPECT_TRUE(http->start());
        proxy = std::make_unique<tls_proxy>(cert, http->port());
        std::ofstream(ca) << cert.cert_pem;
    }
    ~ClientTls() override {
        proxy.reset();
        http->stop();
        std::filesystem::remove(ca);
    }

    // Opens a session at `url` (trusting `ca_file`), calls echo, and says what happened.
    std::string session_at(const std::string& url, const std::string& ca_file, cc::era e) {
        std::string said;
        auto where = cc::endpoint::of_url(url);
        where.ca_file = ca_file;
        cc::session_options o;
        o.protocol = e;
        const object args{{"text", "over tls"}};
        run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
            auto s = co_await cc::session::open(ex, where, o);
            if (!s) {
                said = s.error().code + "/" + s.error().detail;
                co_return;
            }
            const std::string tool = "echo";
            auto r = co_await (*s)->call_tool(tool, args);
            if (r) said = r->raw.at("content").at(0).at("text").as_string();
            else said = r.error().code;
            co_await (*s)->close();
        });
        return said;
    }
};

TEST_F(ClientTls, AnHttpsServerIsSpokenToOnEitherRevision) {
    const auto url = "https://localhost:" + std::to_string(proxy->port()) + "/mcp";
    EXPECT_EQ(session_at(url, ca, cc::era::modern), "over tls");
    EXPECT_EQ(session_at(url, ca, cc::era::legacy), "over tls");  // its listening stream as well
}

TEST_F(ClientTls, ACertificateNotTrustedOrNotNamingTheHostIsNoSession) {
    // Trusted, but it names localhost, not 127.0.0.1.
    EXPECT_EQ(session_at("https://127.0.0.1:" + std::to_string(proxy->port()) + "/mcp", ca, cc::era::modern),
              "CONNECT_FAILED/TLS");
    // Naming the host, but not trusted: the system's authorities never signed it.
    EXPECT_EQ(session_at("https://localhost:" + std::to_string(proxy->port()) + "/mcp", "", cc::era::modern),
              "CONNECT_FAILED/TLS");
}

}  // namespace
}  // namespace candor::test
