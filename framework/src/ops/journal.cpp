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

namespace {

// A journal line written field by field, in `to_json`'s order. Keys are the documented field
// names (nothing to escape); values go through the JSON writer, numbers as JSON values (no
// allocation), so the text is the object's to the byte.
class line_builder {
public:
    line_builder() { out_.reserve(512); }

    void text(std::string_view k, std::string_view v) {
        key(k);
        if (!json::write_string(v, out_)) ok_ = false;
    }
    void value(std::string_view k, const boost::json::value& v) {
        key(k);
        if (!json::write(v, out_)) ok_ = false;
    }
    void texts(std::string_view k, const std::vector<std::string>& vs) {
        key(k);
        out_ += '[';
        for (std::size_t i = 0; i < vs.size(); ++i) {
            if (i) out_ += ',';
            if (!json::write_string(vs[i], out_)) ok_ = false;
        }
        out_ += ']';
    }
    template <class Range, class Write>
    void objects(std::string_view k, const Range& items, Write write) {
        key(k);
        out_ += '[';
        bool first = true;
        for (const auto& item : items) {
            if (!first) out_ += ',';
            first = false;
            sep_ = '{';
            write(item);
            out_ += '}';
        }
        out_ += ']';
    }

    boost::system::result<std::string, json::write_error> finish() && {
        if (!ok_) return json::write_error::invalid_utf8;
        out_ += '}';
        return std::move(out_);
    }

private:
    void key(std::string_view k) {
        out_ += sep_;
        sep_ = ',';
        out_ += '"';
        out_ += k;
        out_ += "\":";
    }

    std::string out_;
    char sep_ = '{';
    bool ok_ = true;
};

}  // namespace

boost::system::result<std::string, json::write_error> to_line(const mcp::call_record& r) {
    namespace jf = journal_field;
    line_builder b;
    b.text(jf::time, format_time(r.time));
    b.text(jf::kind, r.what == mcp::call_record::kind::tool_call ? jf::kind_tool_call : jf::kind_protocol_refusal);
    b.text(jf::request_id, r.request_id);
    b.text(jf::session, r.session);
    b.text(jf::principal, r.principal);
    b.text(jf::client_name, r.client_name);
    b.text(jf::client_version, r.client_version);
    if (!r.protocol_version.empty()) b.text(jf::protocol_version, r.protocol_version);
    if (!r.traceparent.empty()) b.text(jf::traceparent, r.traceparent);
    if (!r.tracestate.empty()) b.text(jf::tracestate, r.tracestate);
    b.text(jf::method, r.method);
    b.text(jf::tool, r.tool);
    b.text(jf::contract_version, r.contract_version);
    b.text(jf::action_class, r.action_class);
    b.value(jf::duration_ms, static_cast<double>(r.duration.count()) / 1e6);
    b.value(jf::bytes_in, r.bytes_in);
    b.value(jf::bytes_out, r.bytes_out);
    b.text(jf::status, r.status);
    b.text(jf::outcome, to_string(outcome_of(r)));
    if (r.complete) b.value(jf::complete, *r.complete);
    else b.value(jf::complete, nullptr);
    b.texts(jf::reasons, r.reason_codes);
    b.texts(jf::warnings, r.warning_codes);
    b.objects(jf::issues, r.issues, [&b](const mcp::issue_record& i) {
        b.text(jf::code, i.code);
        b.text(jf::path, i.path);
        b.text(jf::layer, to_string(i.where));
        b.value(jf::repairable, i.repairable);
    });
    b.objects(jf::limits, r.limits, [&b](const mcp::limit_record& l) {
        b.text(jf::code, l.code);
        b.value(jf::limit, l.limit);
    });
    if (r.evidence_verdict.empty()) b.value(jf::evidence_verdict, nullptr);
    else b.text(jf::evidence_verdict, r.evidence_verdict);
    b.value(jf::repair_attempt, r.repair_attempt);
    if (r.repairs_remaining) b.value(jf::repairs_remaining, *r.repairs_remaining);
    if (r.rpc_error) b.value(jf::rpc_error, *r.rpc_error);
    if (!r.task_id.empty()) b.text(jf::task_id, r.task_id);
    return std::move(b).finish();
}

boost::system::result<std::shared_ptr<journal>> journal::open(journal_options opts) {
    auto out = line_writer::open(std::move(opts));
    if (!out) return out.error();
    return std::shared_ptr<journal>(new journal(std::move(*out)));
}

journal::journal(std::unique_ptr<line_writer> out) : out_(std::move(out)) {}

void journal::on_record(const mcp::call_record& r) {
    // Our own values (codes, numbers, capped names from valid UTF-8): the writer cannot fail.
    auto text = to_line(r);
    if (text) out_->write_line(std::move(*text));
}

void journal::on_durable_record(const mcp::call_record& r, std::function<void()> stored) {
    auto text = to_line(r);
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
