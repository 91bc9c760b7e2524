// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/line_writer.hpp>

#include <candor/ops/metrics.hpp>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <system_error>
#include <unistd.h>

namespace candor::ops {

std::FILE* line_writer::open_file() {
    std::FILE* f = std::fopen(opts_.path.c_str(), "ab");
    // A batch is flushed once: through a buffer of 64 KiB it goes out in one write (stdio's own,
    // 4 KiB, took three or four for a millisecond's lines). glibc takes the size only with a
    // buffer given.
    if (f) {
        if (!buffer_) buffer_ = std::make_unique<char[]>(buffer_size);
        std::setvbuf(f, buffer_.get(), _IOFBF, buffer_size);
    }
    return f;
}

boost::system::result<std::unique_ptr<line_writer>> line_writer::open(line_writer_options opts) {
    std::unique_ptr<line_writer> w(new line_writer(std::move(opts)));
    if (!w->opts_.path.empty()) {
        w->file_ = w->open_file();
        if (!w->file_) return std::error_code(errno, std::generic_category());
        std::fseek(w->file_, 0, SEEK_END);
        const long at = std::ftell(w->file_);
        w->size_ = at > 0 ? static_cast<std::uint64_t>(at) : 0;
    }
    w->writer_ = std::thread([raw = w.get()] { raw->run(); });
    return w;
}

line_writer::line_writer(line_writer_options opts) : opts_(std::move(opts)) {}

line_writer::~line_writer() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (writer_.joinable()) writer_.join();
    if (file_) std::fclose(file_);
}

bool line_writer::enqueue(entry e, bool durable) {
    // The queues are the metrics' per-thread shards: each thread its own, the same index.
    static_assert(shard_count == detail::thread_shards);
    auto& s = shards_[detail::thread_shard()];
    std::size_t queued = 0;
    {
        std::lock_guard lock(s.mu);
        if (!durable && s.lines.size() >= opts_.queue_capacity) {
            ++s.dropped;
            return false;
        }
        e.at = std::chrono::steady_clock::now();
        s.lines.push_back(std::move(e));
        queued = s.lines.size();
    }
    // Read by every line, written only when the writer falls asleep or wakes: a line wakes the
    // writer only when it sleeps (the first line after it did), or to end its batch delay
    // early when this thread alone has a batch's worth; a durable line always, as a reply is
    // held back until it is stored.
    if (durable || asleep_.load() || queued == opts_.batch_lines) wake(durable);
    return true;
}

void line_writer::wake(bool urgent) {
    {
        std::lock_guard lock(mu_);
        woken_ = true;
        if (urgent) urgent_ = true;
    }
    wake_.notify_one();
}

bool line_writer::write_line(std::string line) { return enqueue({std::move(line), {}, {}}, false); }

void line_writer::write_durable(std::string line, std::function<void()> stored) {
    enqueue({std::move(line), std::move(stored), {}}, true);
}

bool line_writer::any_queued() {
    for (auto& s : shards_) {
        std::lock_guard lock(s.mu);
        if (!s.lines.empty()) return true;
    }
    return false;
}

void line_writer::take_all(std::vector<entry>& batch) {
    bool several = false;
    for (auto& s : shards_) {
        std::lock_guard lock(s.mu);
        if (s.lines.empty()) continue;
        if (batch.empty()) {
            batch.swap(s.lines);
            continue;
        }
        several = true;
        std::move(s.lines.begin(), s.lines.end(), std::back_inserter(batch));
        s.lines.clear();
    }
    // Each shard's lines are in their order; lines of several shards are put in the order
    // they were queued (a thread's own keep theirs: the sort is stable).
    if (several)
        std::stable_sort(batch.begin(), batch.end(), [](const entry& a, const entry& b) { return a.at < b.at; });
}

void line_writer::flush() {
    wake(true);
    std::unique_lock lock(mu_);
    // The writer clears `urgent_` only after it found nothing to take: every line queued before
    // this call has then been written.
    idle_.wait(lock, [this] { return !busy_ && !woken_ && !urgent_; });
}

std::uint64_t line_writer::written() const {
    std::lock_guard lock(mu_);
    return written_;
}
std::uint64_t line_writer::dropped() const {
    std::uint64_t n = 0;
    for (const auto& s : shards_) {
        std::lock_guard lock(s.mu);
        n += s.dropped;
    }
    return n;
}
std::uint64_t line_writer::rotations() const {
    std::lock_guard lock(mu_);
    return rotations_;
}
std::uint64_t line_writer::failures() const {
    std::lock_guard lock(mu_);
    return failures_;
}

void line_writer::run() {
    std::vector<entry> batch;
    std::unique_lock lock(mu_);
    for (;;) {
        woken_ = false;
        busy_ = true;  // from the take to the end of the write: a flush waits
        lock.unlock();
        take_all(batch);
        if (!batch.empty()) write_batch(batch);
        lock.lock();
        busy_ = false;
        const bool wrote = !batch.empty();
        written_ += batch.size();
        batch.clear();
        if (!wrote) {
            // Nothing was queued: whoever flushed is served.
            urgent_ = false;
            idle_.notify_all();
            if (stopping_) break;
            if (!woken_) {
                // Asleep: a line queued from now on wakes it. One queued between the take and
                // here is found below (its thread reads `asleep_` after queueing it).
                asleep_.store(true);
                lock.unlock();
                const bool queued = any_queued();
                lock.lock();
                if (!queued) wake_.wait(lock, [this] { return stopping_ || woken_; });
                asleep_.store(false);
            }
            woken_ = false;  // the line that woke it is in the batch that gathers now
        }
        // Lines are coming: let a batch gather, unless someone waits for it or a thread has a
        // batch's worth (`woken_`).
        if (!stopping_ && !urgent_ && opts_.batch_delay.count() > 0)
            wake_.wait_for(lock, opts_.batch_delay, [this] { return stopping_ || urgent_ || woken_; });
    }
}

void line_writer::write_batch(const std::vector<entry>& batch) {
    bool ok = true;
    bool durable = false;
    for (const auto& e : batch) {
        ok = write_out(e.line) && ok;
        durable = durable || e.stored;
    }
    // One flush (and one sync) per batch: every durable line in it is acknowledged by the same
    // system calls.
    if (file_ && std::fflush(file_) != 0) ok = false;
    if (opts_.to_stderr) std::fflush(stderr);
    if (durable && opts_.sync && file_ && ::fdatasync(::fileno(file_)) != 0) ok = false;
    // Said once when writing starts failing, not once per batch; counted every time.
    if (!ok && !failing_) std::fprintf(stderr, "candor: writing '%s' failed; lines may be lost\n", opts_.path.c_str());
    failing_ = !ok;
    for (const auto& e : batch)
        if (e.stored) e.stored();  // the held-back reply goes out (the action happened, stored or not)
    if (!ok) {
        std::lock_guard lock(mu_);
        ++failures_;
    }
}

bool line_writer::write_out(const std::string& line) {
    if (opts_.to_stderr) {
        std::fwrite(line.data(), 1, line.size(), stderr);
        std::fputc('\n', stderr);
    }
    if (!file_) return opts_.path.empty();
    if (opts_.max_bytes && size_ > 0 && size_ + line.size() + 1 > opts_.max_bytes) rotate();
    if (!file_) return false;
    const bool ok = std::fwrite(line.data(), 1, line.size(), file_) == line.size() && std::fputc('\n', file_) != EOF;
    size_ += line.size() + 1;
    return ok;
}

void line_writer::rotate() {
    std::fclose(file_);
    file_ = nullptr;
    const auto name = [this](unsigned n) { return n ? opts_.path + "." + std::to_string(n) : opts_.path; };
    if (opts_.keep_files == 0) {
        std::remove(opts_.path.c_str());
    } else {
        std::remove(name(opts_.keep_files).c_str());
        for (unsigned n = opts_.keep_files; n > 0; --n) std::rename(name(n - 1).c_str(), name(n).c_str());
    }
    file_ = open_file();
    size_ = 0;
    std::lock_guard lock(mu_);
    ++rotations_;
}

}  // namespace candor::ops
