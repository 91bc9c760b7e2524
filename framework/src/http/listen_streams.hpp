// SPDX-License-Identifier: BSL-1.0
#pragma once
// The `subscriptions/listen` streams a server holds open: bounded per share (a principal, or
// for an anonymous caller the client's address) and server-wide. A stream holds its connection
// for as long as the client listens, so without a bound one caller's streams would take every
// connection, and with them everyone else's calls and the load balancer's `/readyz`.
//
// A share past its bound gives up its oldest stream for the new one (a client that lost track
// of a stream gets a fresh one, never a refusal); a server past its bound refuses the new one.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace candor::transport {

class listen_streams {
public:
    /// One open stream. `closed()` completes once it must end (its share opened one too many);
    /// use it on `ex`, the stream's own executor, where eviction is delivered too.
    class ticket {
    public:
        ticket(boost::asio::any_io_executor ex, std::string share)
            : share_(std::move(share)), wake_(std::move(ex), boost::asio::steady_timer::time_point::max()) {}

        /// Completes when the stream is evicted (at once if it already was).
        template <class Token>
        auto closed(Token&& token) {
            if (evicted_) wake_.expires_at(boost::asio::steady_timer::time_point::min());
            return wake_.async_wait(std::forward<Token>(token));
        }

    private:
        friend class listen_streams;
        void evict() {
            evicted_ = true;
            wake_.cancel();
        }
        std::string share_;
        boost::asio::steady_timer wake_;
        bool evicted_ = false;  // on the stream's executor only
    };

    listen_streams(std::size_t per_share, std::size_t total)
        : per_share_(per_share == 0 ? 1 : per_share), total_limit_(total == 0 ? 1 : total) {}

    /// Open a stream for `share` on `ex`. @return its ticket, or null when the server holds
    /// `total` streams already (refuse the new one)
    std::shared_ptr<ticket> open(const boost::asio::any_io_executor& ex, std::string share) {
        std::shared_ptr<ticket> evicted;
        auto t = std::make_shared<ticket>(ex, share);
        {
            std::lock_guard lock(mu_);
            auto& mine = by_share_[share];
            if (mine.size() >= per_share_) {
                evicted = std::move(mine.front());
                mine.pop_front();
            } else if (total_ >= total_limit_) {
                if (mine.empty()) by_share_.erase(share);
                return nullptr;
            } else {
                ++total_;
            }
            mine.push_back(t);
        }
        if (evicted) boost::asio::post(evicted->wake_.get_executor(), [evicted] { evicted->evict(); });
        return t;
    }

    /// The stream of `t` ended (however): its place is free.
    void close(const std::shared_ptr<ticket>& t) {
        std::lock_guard lock(mu_);
        auto it = by_share_.find(t->share_);
        if (it == by_share_.end()) return;
        auto& mine = it->second;
        for (auto i = mine.begin(); i != mine.end(); ++i) {
            if (*i != t) continue;
            mine.erase(i);
            --total_;
            break;
        }
        if (mine.empty()) by_share_.erase(it);
    }

    /// Streams open now, server-wide.
    std::size_t size() const {
        std::lock_guard lock(mu_);
        return total_;
    }

private:
    const std::size_t per_share_;
    const std::size_t total_limit_;
    mutable std::mutex mu_;
    std::unordered_map<std::string, std::deque<std::shared_ptr<ticket>>> by_share_;
    std::size_t total_ = 0;
};

}  // namespace candor::transport
