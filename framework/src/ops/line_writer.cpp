// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/line_writer.hpp>

#include <cerrno>
#include <system_error>
#include <unistd.h>

namespace candor::ops {

namespace {

// A batch is flushed once: with a buffer of 64 KiB it goes out in one write (stdio's own, 4 KiB,
// took three or four for a millisecond's lines).
std::FILE* open_for_append(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "ab");
    if (f) std::setvbuf(f, nullptr, _IOFBF, std::size_t{64} << 10);
    return f;
}

}  // namespace

boost::system::result<std::unique_ptr<line_writer>> line_writer::open(line_writer_options opts) {
    std::unique_ptr<line_writer> w(new line_writer(std::move(opts)));
    if (!w->opts_.path.empty()) {
        w->file_ = open_for_append(w->opts_.path);
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

bool line_writer::write_line(std::string line) {
    bool wake = false;
    {
        std::lock_guard lock(mu_);
        if (queue_.size() >= opts_.queue_capacity) {
            ++dropped_;
            return false;
        }
        queue_.push_back({std::move(line), {}});
        // The writer waits for a first line, or lets a batch gather: only the first line and a
        // full batch wake it.
        wake = queue_.size() == 1 || queue_.size() == opts_.batch_lines;
    }
    if (wake) wake_.notify_one();
    return true;
}

void line_writer::write_durable(std::string line, std::function<void()> stored) {
    {
        std::lock_guard lock(mu_);
        queue_.push_back({std::move(line), std::move(stored)});
        urgent_ = true;  // a reply is held back until it is stored
    }
    wake_.notify_one();
}

void line_writer::flush() {
    std::unique_lock lock(mu_);
    if (queue_.empty() && !busy_) return;
    urgent_ = true;
    wake_.notify_one();
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

std::uint64_t line_writer::written() const {
    std::lock_guard lock(mu_);
    return written_;
}
std::uint64_t line_writer::dropped() const {
    std::lock_guard lock(mu_);
    return dropped_;
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
    std::deque<entry> batch;
    std::unique_lock lock(mu_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty() && stopping_) break;
        if (opts_.batch_delay.count() > 0)
            wake_.wait_for(lock, opts_.batch_delay,
                           [this] { return stopping_ || urgent_ || queue_.size() >= opts_.batch_lines; });
        urgent_ = false;
        batch.swap(queue_);
        busy_ = true;
        lock.unlock();
        bool ok = true;
        bool durable = false;
        for (const auto& e : batch) {
            ok = write_out(e.line) && ok;
            durable = durable || e.stored;
        }
        // One flush (and one sync) per batch: every durable line in it is acknowledged by the
        // same system calls.
        if (file_ && std::fflush(file_) != 0) ok = false;
        if (opts_.to_stderr) std::fflush(stderr);
        if (durable && opts_.sync && file_ && ::fdatasync(::fileno(file_)) != 0) ok = false;
        // Said once when writing starts failing, not once per batch; counted every time.
        if (!ok && !failing_)
            std::fprintf(stderr, "candor: writing '%s' failed; lines may be lost\n", opts_.path.c_str());
        failing_ = !ok;
        for (auto& e : batch)
            if (e.stored) e.stored();  // the held-back reply goes out (the action happened, stored or not)
        const auto n = batch.size();
        batch.clear();
        lock.lock();
        written_ += n;
        if (!ok) ++failures_;
        busy_ = false;
        if (queue_.empty()) idle_.notify_all();
    }
    busy_ = false;
    idle_.notify_all();
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
    file_ = open_for_append(opts_.path);
    size_ = 0;
    std::lock_guard lock(mu_);
    ++rotations_;
}

}  // namespace candor::ops
