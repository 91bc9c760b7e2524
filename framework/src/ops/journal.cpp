// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/journal.hpp>

#include <candor/json/write.hpp>
#include <candor/ops/outcome.hpp>

#include <boost/json/array.hpp>

#include <cerrno>
#include <ctime>
#include <system_error>

namespace candor::ops {

std::string format_time(std::chrono::system_clock::time_point t) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
    return buf;
}

boost::json::object to_json(const mcp::call_record& r) {
    namespace jf = journal_field;
    boost::json::object o;
    o[jf::time] = format_time(r.time);
    o[jf::kind] = r.what == mcp::call_record::kind::tool_call ? jf::kind_tool_call : jf::kind_protocol_refusal;
    o[jf::request_id] = r.request_id;
    o[jf::session] = r.session;
    o[jf::principal] = r.principal;
    o[jf::client_name] = r.client_name;
    o[jf::client_version] = r.client_version;
    o[jf::method] = r.method;
    o[jf::tool] = r.tool;
    o[jf::contract_version] = r.contract_version;
    o[jf::action_class] = r.action_class;
    o[jf::duration_ms] = static_cast<double>(r.duration.count()) / 1e6;
    o[jf::bytes_in] = r.bytes_in;
    o[jf::bytes_out] = r.bytes_out;
    o[jf::status] = r.status;
    o[jf::outcome] = to_string(outcome_of(r));
    if (r.complete) o[jf::complete] = *r.complete;
    else o[jf::complete] = nullptr;
    boost::json::array reasons(r.reason_codes.begin(), r.reason_codes.end());
    o[jf::reasons] = std::move(reasons);
    boost::json::array warnings(r.warning_codes.begin(), r.warning_codes.end());
    o[jf::warnings] = std::move(warnings);
    boost::json::array issues;
    for (const auto& i : r.issues)
        issues.push_back(boost::json::object{
            {jf::code, i.code}, {jf::path, i.path}, {jf::layer, to_string(i.where)}, {jf::repairable, i.repairable}});
    o[jf::issues] = std::move(issues);
    boost::json::array limits;
    for (const auto& l : r.limits) limits.push_back(boost::json::object{{jf::code, l.code}, {jf::limit, l.limit}});
    o[jf::limits] = std::move(limits);
    if (r.evidence_verdict.empty()) o[jf::evidence_verdict] = nullptr;
    else o[jf::evidence_verdict] = r.evidence_verdict;
    o[jf::repair_attempt] = r.repair_attempt;
    if (r.repairs_remaining) o[jf::repairs_remaining] = *r.repairs_remaining;
    if (r.rpc_error) o[jf::rpc_error] = *r.rpc_error;
    return o;
}

boost::system::result<std::shared_ptr<journal>> journal::open(journal_options opts) {
    std::shared_ptr<journal> j(new journal(std::move(opts)));
    if (!j->opts_.path.empty()) {
        j->file_ = std::fopen(j->opts_.path.c_str(), "ab");
        if (!j->file_) return std::error_code(errno, std::generic_category());
        std::fseek(j->file_, 0, SEEK_END);
        const long at = std::ftell(j->file_);
        j->size_ = at > 0 ? static_cast<std::uint64_t>(at) : 0;
    }
    j->writer_ = std::thread([raw = j.get()] { raw->run(); });
    return j;
}

journal::journal(journal_options opts) : opts_(std::move(opts)) {}

journal::~journal() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (writer_.joinable()) writer_.join();
    if (file_) std::fclose(file_);
}

void journal::on_record(const mcp::call_record& r) {
    // Our own values (codes, numbers, capped names from valid UTF-8): the writer cannot fail.
    auto text = json::to_string(to_json(r));
    if (text) write_line(std::move(*text));
}

bool journal::write_line(std::string line) {
    {
        std::lock_guard lock(mu_);
        if (queue_.size() >= opts_.queue_capacity) {
            ++dropped_;
            return false;
        }
        queue_.push_back(std::move(line));
    }
    wake_.notify_one();
    return true;
}

void journal::flush() {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

std::uint64_t journal::written() const {
    std::lock_guard lock(mu_);
    return written_;
}
std::uint64_t journal::dropped() const {
    std::lock_guard lock(mu_);
    return dropped_;
}
std::uint64_t journal::rotations() const {
    std::lock_guard lock(mu_);
    return rotations_;
}

void journal::run() {
    std::deque<std::string> batch;
    std::unique_lock lock(mu_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty() && stopping_) break;
        batch.swap(queue_);
        busy_ = true;
        lock.unlock();
        for (const auto& line : batch) write_out(line);
        if (file_) std::fflush(file_);
        if (opts_.to_stderr) std::fflush(stderr);
        const auto n = batch.size();
        batch.clear();
        lock.lock();
        written_ += n;
        busy_ = false;
        if (queue_.empty()) idle_.notify_all();
    }
    busy_ = false;
    idle_.notify_all();
}

void journal::write_out(const std::string& line) {
    if (opts_.to_stderr) {
        std::fwrite(line.data(), 1, line.size(), stderr);
        std::fputc('\n', stderr);
    }
    if (!file_) return;
    if (opts_.max_bytes && size_ > 0 && size_ + line.size() + 1 > opts_.max_bytes) rotate();
    if (!file_) return;
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fputc('\n', file_);
    size_ += line.size() + 1;
}

void journal::rotate() {
    std::fclose(file_);
    file_ = nullptr;
    const auto name = [this](unsigned n) { return n ? opts_.path + "." + std::to_string(n) : opts_.path; };
    if (opts_.keep_files == 0) {
        std::remove(opts_.path.c_str());
    } else {
        std::remove(name(opts_.keep_files).c_str());
        for (unsigned n = opts_.keep_files; n > 0; --n) std::rename(name(n - 1).c_str(), name(n).c_str());
    }
    file_ = std::fopen(opts_.path.c_str(), "ab");
    size_ = 0;
    std::lock_guard lock(mu_);
    ++rotations_;
}

}  // namespace candor::ops
