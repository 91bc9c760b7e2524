// SPDX-License-Identifier: BSL-1.0
#include "output_backlog.hpp"

#include <utility>

namespace candor::transport::detail {

void output_backlog::remove(std::size_t n) {
    const std::size_t left = bytes_.fetch_sub(n) - n;
    if (!holding_.load() || left > limit_ / 2) return;
    std::function<void()> resume;
    {
        std::lock_guard lock(mu_);
        if (!holding_.load() || bytes_.load() > limit_ / 2) return;
        holding_ = false;
        resume = std::move(resume_);
        resume_ = nullptr;
    }
    if (resume) resume();
}

bool output_backlog::hold(std::function<void()> resume) {
    if (bytes_.load() <= limit_) return false;
    std::lock_guard lock(mu_);
    if (released_) return false;
    holding_ = true;
    // Checked again once the hold is visible: a writer that drained the backlog in between did
    // not see it, and would never resume us.
    if (bytes_.load() > limit_ / 2) {
        resume_ = std::move(resume);
        return true;
    }
    holding_ = false;
    return false;
}

void output_backlog::release() {
    std::function<void()> resume;
    {
        std::lock_guard lock(mu_);
        released_ = true;
        holding_ = false;
        resume = std::move(resume_);
        resume_ = nullptr;
    }
    if (resume) resume();
}

}  // namespace candor::transport::detail
