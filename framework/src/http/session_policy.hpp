// SPDX-License-Identifier: BSL-1.0
#pragma once
// Who may open one more session, and which session gives way: the rule, apart from where the
// sessions are kept. Private to the transport module. The in-memory session table feeds it the
// facts of its live sessions; a table kept elsewhere (a database shared by replicas) would feed
// it the same facts, or apply the same rule in its own query.
//
// The rule, for a principal P opening a session:
//   1. P holds its share (`max_per_principal`): P's own least recently used session gives way;
//      if every one of them is busy, P is refused.
//   2. The table is full (`max_sessions`): an expired session gives way; else the least recently
//      used session never used after its initialize (of any principal: a session nobody used is
//      the cheapest to lose, and the kind a flood leaves); else P's own least recently used; if
//      P has none that is not busy, P is refused.
//   3. Otherwise P is admitted.
// A busy session (a request in flight or a stream open) never gives way.

#include <candor/http/policy.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace candor::transport::detail {

/// What the rule needs to know of one live session.
struct session_facts {
    std::string_view id;
    /// Whose share it counts against (a principal, or an anonymous client's address).
    std::string_view owner;
    std::chrono::steady_clock::time_point last_used;
    /// It served a request besides its `initialize` (or opened a stream).
    bool used = false;
    /// A request in flight or a stream open.
    bool busy = false;
    /// Unused for longer than the idle timeout (and not busy): as good as gone.
    bool expired = false;
};

struct session_limits {
    std::size_t max_sessions = 1024;
    std::size_t max_per_principal = 64;
};

/// One decision: call `consider` once per live session, then `decide`.
class session_admission {
public:
    /// @param owner whose share the new session counts against
    session_admission(std::string_view owner, session_limits limits) : owner_(owner), limits_(limits) {}

    void consider(const session_facts& s);

    struct decision {
        /// The session that must give way first (empty: none).
        std::string evict;
        /// Set when the new session is refused (then nothing is evicted).
        std::optional<http_policy::refusal> refused;
    };
    decision decide() const;

private:
    // The least recently used of a kind, by id.
    struct oldest {
        std::string id;
        std::chrono::steady_clock::time_point last_used = std::chrono::steady_clock::time_point::max();
        void offer(const session_facts& s) {
            if (s.last_used < last_used) {
                id = std::string(s.id);
                last_used = s.last_used;
            }
        }
    };

    std::string_view owner_;
    session_limits limits_;
    std::size_t total_ = 0;
    std::size_t owned_ = 0;
    oldest expired_;
    oldest unused_;  // never used after initialize, not busy, anyone's
    oldest own_;     // the owner's, not busy
};

}  // namespace candor::transport::detail
