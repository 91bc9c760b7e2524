// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/memory_transport.hpp>

#include <candor/json/write.hpp>
#include <candor/mcp/connection.hpp>

#include <boost/json/parse.hpp>

namespace candor::mcp {

memory_client::memory_client(server& srv, boost::asio::io_context& ioc, connection_options opts)
    : ioc_(ioc),
      inbox_(std::make_shared<std::vector<boost::json::value>>()),
      inbox_bytes_(std::make_shared<std::vector<std::size_t>>()) {
    // The send function only appends; parsing our own server's output is trusted here (it is
    // what a client library would do), and a text that is not JSON is kept as a string so a
    // test can see it.
    conn_ = srv.connect(
        ioc.get_executor(),
        [inbox = inbox_, bytes = inbox_bytes_](std::string text) {
            bytes->push_back(text.size());
            boost::system::error_code ec;
            auto v = boost::json::parse(text, ec);
            inbox->push_back(ec ? boost::json::value(text) : std::move(v));
        },
        std::move(opts));
}

memory_client::~memory_client() {
    conn_->close();
    run_ready();
}

void memory_client::collect() {
    for (auto& v : *inbox_) received_.push_back(std::move(v));
    inbox_->clear();
    received_bytes_.insert(received_bytes_.end(), inbox_bytes_->begin(), inbox_bytes_->end());
    inbox_bytes_->clear();
}

void memory_client::send(std::string text) { conn_->receive(std::move(text)); }

bool memory_client::run_until(const std::function<bool()>& done) {
    ioc_.restart();
    collect();
    while (!done()) {
        if (ioc_.run_one() == 0) break;
        collect();
    }
    collect();
    return done();
}

void memory_client::run_ready() {
    ioc_.restart();
    ioc_.poll();
    collect();
}

boost::json::value memory_client::response_to(const boost::json::value& id) const {
    for (const auto& m : received_) {
        const auto* o = m.if_object();
        if (!o || o->contains("method")) continue;
        if (const auto* mid = o->if_contains("id"); mid && *mid == id) return m;
    }
    return nullptr;
}

std::vector<boost::json::value> memory_client::notifications(std::string_view method) const {
    std::vector<boost::json::value> out;
    for (const auto& m : received_) {
        const auto* o = m.if_object();
        if (!o || o->contains("id")) continue;
        const auto* mm = o->if_contains("method");
        if (!mm || !mm->is_string()) continue;
        if (method.empty() || mm->get_string() == method) out.push_back(m);
    }
    return out;
}

boost::json::value memory_client::exchange(std::string text, const boost::json::value& id) {
    const std::size_t before = received_.size();
    send(std::move(text));
    boost::json::value found = nullptr;
    run_until([&] {
        for (std::size_t i = before; i < received_.size(); ++i) {
            const auto* o = received_[i].if_object();
            if (!o || o->contains("method")) continue;
            if (const auto* mid = o->if_contains("id"); mid && *mid == id) {
                found = received_[i];
                return true;
            }
        }
        return false;
    });
    return found;
}

boost::json::value memory_client::request(std::string_view method, boost::json::object params) {
    const std::int64_t id = next_id_++;
    boost::json::object msg{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.empty()) msg["params"] = std::move(params);
    return exchange(json::to_string(msg).value(), id);
}

void memory_client::notify(std::string_view method, boost::json::object params) {
    boost::json::object msg{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.empty()) msg["params"] = std::move(params);
    send(json::to_string(msg).value());
    run_ready();
}

boost::json::value memory_client::initialize(std::string_view version, boost::json::object capabilities) {
    auto r = request(
        "initialize",
        boost::json::object{{"protocolVersion", version},
                            {"capabilities", std::move(capabilities)},
                            {"clientInfo", boost::json::object{{"name", "memory-client"}, {"version", "1.0"}}}});
    notify("notifications/initialized");
    return r;
}

}  // namespace candor::mcp
