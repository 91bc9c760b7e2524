// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/journal.hpp>

#include <candor/json/write.hpp>
#include <candor/ops/outcome.hpp>

#include <boost/json/array.hpp>

namespace candor::ops {

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
    if (!r.protocol_version.empty()) o[jf::protocol_version] = r.protocol_version;
    if (!r.traceparent.empty()) o[jf::traceparent] = r.traceparent;
    if (!r.tracestate.empty()) o[jf::tracestate] = r.tracestate;
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
    if (!r.task_id.empty()) o[jf::task_id] = r.task_id;
    return o;
}

boost::system::result<std::shared_ptr<journal>> journal::open(journal_options opts) {
    auto out = line_writer::open(std::move(opts));
    if (!out) return out.error();
    return std::shared_ptr<journal>(new journal(std::move(*out)));
}

journal::journal(std::unique_ptr<line_writer> out) : out_(std::move(out)) {}

void journal::on_record(const mcp::call_record& r) {
    // Our own values (codes, numbers, capped names from valid UTF-8): the writer cannot fail.
    auto text = json::to_string(to_json(r));
    if (text) out_->write_line(std::move(*text));
}

void journal::on_durable_record(const mcp::call_record& r, std::function<void()> stored) {
    auto text = json::to_string(to_json(r));
    if (!text) {
        stored();
        return;
    }
    out_->write_durable(std::move(*text), std::move(stored));
}

bool journal::write_line(std::string line) { return out_->write_line(std::move(line)); }
void journal::flush() { out_->flush(); }
std::uint64_t journal::written() const { return out_->written(); }
std::uint64_t journal::dropped() const { return out_->dropped(); }
std::uint64_t journal::rotations() const { return out_->rotations(); }
std::uint64_t journal::failures() const { return out_->failures(); }

}  // namespace candor::ops
