// SPDX-License-Identifier: BSL-1.0
#include "session.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/channel_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace candor::transport::detail {

void exchange::push(std::string text, bool final) {
    if (reason_.load() != end_reason::none) return;
    const std::size_t size = text.size();
    const std::size_t before = queued_bytes_.fetch_add(size);
    if (before > 0 && before + size > max_bytes_) {
        queued_bytes_.fetch_sub(size);
        end(end_reason::overflow);
        return;
    }
    if (!channel_.try_send(boost::system::error_code{}, std::move(text), final)) end(end_reason::overflow);
}

boost::asio::awaitable<std::tuple<boost::system::error_code, std::string, bool>> exchange::next() {
    auto got = co_await channel_.async_receive(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (!std::get<0>(got)) queued_bytes_.fetch_sub(std::get<1>(got).size());
    co_return got;
}

void exchange::end(end_reason why) {
    end_reason expected = end_reason::none;
    reason_.compare_exchange_strong(expected, why);
    channel_.close();
}

mcp::connection::routed_send_function http_session::router() {
    return [weak = weak_from_this()](std::string text, const mcp::message_route& route) {
        if (auto self = weak.lock()) self->deliver(std::move(text), route);
    };
}

void http_session::deliver(std::string text, const mcp::message_route& route) {
    std::shared_ptr<exchange> target;
    {
        std::lock_guard lock(mu_);
        if (route.request) {
            auto it = requests_.find(*route.request);
            if (it != requests_.end()) {
                target = it->second;
                if (route.is_response) requests_.erase(it);
            }
        } else if (!streams_.empty()) {
            target = streams_.back().ex;
        }
    }
    // No stream: the client gave up on the request, or opened no GET stream. The spec lets
    // the server drop such messages rather than send them on a stream they do not belong to.
    if (target) target->push(std::move(text), route.is_response);
}

void http_session::update_caller(const mcp::principal& who) {
    {
        std::lock_guard lock(mu_);
        if (who.credential == credential_) return;
        credential_ = who.credential;
    }
    connection_->set_caller(who);
}

bool http_session::open_request(const jsonrpc::request_id& id, std::shared_ptr<exchange> ex) {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    ++requests_opened_;
    return requests_.emplace(id, std::move(ex)).second;
}

void http_session::cancel_request(const jsonrpc::request_id& id) {
    std::shared_ptr<exchange> ex;
    {
        std::lock_guard lock(mu_);
        auto it = requests_.find(id);
        if (it == requests_.end()) return;
        ex = std::move(it->second);
        requests_.erase(it);
    }
    ex->end(end_reason::cancelled);
}

void http_session::forget_request(const jsonrpc::request_id& id) {
    std::lock_guard lock(mu_);
    requests_.erase(id);
}

bool http_session::open_stream(std::shared_ptr<exchange> ex, std::size_t max, std::string log_id,
                               std::string_view resumes) {
    std::shared_ptr<exchange> superseded;
    bool opened = false;
    {
        std::lock_guard lock(mu_);
        if (closed_) return false;
        if (!resumes.empty()) {
            const auto old = std::find_if(streams_.begin(), streams_.end(),
                                          [&](const get_stream& s) { return s.log_id == resumes; });
            if (old != streams_.end()) {
                superseded = std::move(old->ex);
                streams_.erase(old);
            }
        }
        if (streams_.size() < max) {
            streams_.push_back({std::move(ex), std::move(log_id)});
            stream_opened_ = true;
            opened = true;
        }
    }
    if (superseded) superseded->end(end_reason::superseded);
    return opened;
}

void http_session::close_stream(const std::shared_ptr<exchange>& ex) {
    std::lock_guard lock(mu_);
    std::erase_if(streams_, [&](const get_stream& s) { return s.ex == ex; });
}

void http_session::close(end_reason why) {
    std::map<jsonrpc::request_id, std::shared_ptr<exchange>> requests;
    std::vector<get_stream> streams;
    {
        std::lock_guard lock(mu_);
        closed_ = true;
        requests.swap(requests_);
        streams.swap(streams_);
    }
    if (connection_) connection_->close();
    for (auto& [id, ex] : requests) ex->end(why);
    for (auto& s : streams) s.ex->end(why);
}

void http_session::taken_over() {
    std::lock_guard lock(mu_);
    requests_opened_ = std::max<std::size_t>(requests_opened_, 1);
}

bool http_session::claim_check(std::chrono::steady_clock::time_point now, std::chrono::milliseconds every) noexcept {
    auto last = checked_.load();
    const auto at = now.time_since_epoch().count();
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(every).count();
    while (at - last >= period)
        if (checked_.compare_exchange_weak(last, at)) return true;
    return false;
}

bool http_session::expired(std::chrono::steady_clock::time_point now, std::chrono::milliseconds idle) const {
    {
        std::lock_guard lock(mu_);
        if (!streams_.empty() || !requests_.empty()) return false;
    }
    return now - last_used() >= idle;
}

session_facts http_session::facts(std::chrono::steady_clock::time_point now, std::chrono::milliseconds idle) const {
    session_facts f;
    f.id = id_;
    f.owner = owner_;
    f.last_used = last_used();
    std::lock_guard lock(mu_);
    f.used = requests_opened_ > 1 || stream_opened_;
    f.busy = !streams_.empty() || !requests_.empty();
    f.expired = !f.busy && now - f.last_used >= idle;
    return f;
}

std::variant<std::shared_ptr<http_session>, http_policy::refusal> session_table::admit_locked(
    std::shared_ptr<http_session> s) {
    std::shared_ptr<http_session> gone;
    session_admission admission(s->owner(), limits_);
    const auto now = std::chrono::steady_clock::now();
    for (const auto& [id, live] : sessions_) admission.consider(live->facts(now, idle_));
    auto decision = admission.decide();
    if (decision.refused) return std::move(*decision.refused);
    if (!decision.evict.empty()) {
        auto it = sessions_.find(decision.evict);
        gone = std::move(it->second);
        sessions_.erase(it);
    }
    sessions_.emplace(s->id(), std::move(s));
    return gone;
}

std::optional<http_policy::refusal> session_table::add(std::shared_ptr<http_session> s) {
    std::variant<std::shared_ptr<http_session>, http_policy::refusal> admitted;
    {
        std::lock_guard lock(mu_);
        admitted = admit_locked(std::move(s));
    }
    if (auto* r = std::get_if<http_policy::refusal>(&admitted)) return std::move(*r);
    // Its later requests get 404, as for an expired session; the client may initialize again.
    // (With shared records, its record stays: another replica may still use it.)
    if (auto& gone = std::get<std::shared_ptr<http_session>>(admitted)) gone->close(end_reason::session_closed);
    return std::nullopt;
}

std::variant<std::shared_ptr<http_session>, http_policy::refusal> session_table::adopt(
    std::shared_ptr<http_session> s) {
    std::variant<std::shared_ptr<http_session>, http_policy::refusal> admitted;
    {
        std::lock_guard lock(mu_);
        if (auto it = sessions_.find(s->id()); it != sessions_.end()) {
            it->second->touch();
            return it->second;
        }
        admitted = admit_locked(s);
    }
    if (auto* r = std::get_if<http_policy::refusal>(&admitted)) return std::move(*r);
    if (auto& gone = std::get<std::shared_ptr<http_session>>(admitted)) gone->close(end_reason::session_closed);
    return s;
}

std::shared_ptr<http_session> session_table::find(std::string_view id) {
    std::shared_ptr<http_session> s;
    {
        std::lock_guard lock(mu_);
        auto it = sessions_.find(std::string(id));
        if (it == sessions_.end()) return nullptr;
        if (!it->second->expired(std::chrono::steady_clock::now(), idle_)) {
            it->second->touch();
            return it->second;
        }
        s = std::move(it->second);
        sessions_.erase(it);
    }
    s->close(end_reason::session_closed);
    return nullptr;
}

std::shared_ptr<http_session> session_table::remove(std::string_view id) {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(std::string(id));
    if (it == sessions_.end()) return nullptr;
    auto s = std::move(it->second);
    sessions_.erase(it);
    return s;
}

void session_table::sweep() {
    std::vector<std::shared_ptr<http_session>> gone;
    {
        std::lock_guard lock(mu_);
        const auto now = std::chrono::steady_clock::now();
        for (auto it = sessions_.begin(); it != sessions_.end();) {
            if (it->second->expired(now, idle_)) {
                gone.push_back(std::move(it->second));
                it = sessions_.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto& s : gone) s->close(end_reason::session_closed);
}

void session_table::close_all(end_reason why) {
    std::unordered_map<std::string, std::shared_ptr<http_session>> all;
    {
        std::lock_guard lock(mu_);
        all.swap(sessions_);
    }
    for (auto& [id, s] : all) s->close(why);
}

std::size_t session_table::size() const {
    std::lock_guard lock(mu_);
    return sessions_.size();
}

}  // namespace candor::transport::detail
