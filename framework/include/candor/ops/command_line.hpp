// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The operators' flags for the standard command line (component ops; docs/operations.md):
///
///     --journal PATH           one JSON line per tool call and refused message ('-': stderr)
///     --journal-max-bytes N    rotate the journal at N bytes
///     --no-metrics             no GET /metrics on the HTTP listener (on by default)
///     --ops-token TOKEN        the operations console at GET /ops, for bearers of TOKEN
///     --log-format text|json   the server's log on stderr, as text or one JSON object per line
///     --log-level LEVEL        the lowest severity logged (default info)
///
/// The journal and the log flags work over any transport (the log's format holds from the first
/// line, before `app_options::prepare`, whatever the command); `/metrics` and `/ops` are paths of
/// the HTTP listener, so they come with the `app::http_command_line` given to the constructor:
///
///     auto http = std::make_shared<candor::app::http_command_line>();
///     opts.extensions = {http, std::make_shared<candor::ops::command_line>(http)};

#include <candor/app/command_line.hpp>
#include <candor/http/command_line.hpp>
#include <candor/ops/journal.hpp>
#include <candor/ops/log.hpp>

#include <memory>
#include <string>

namespace candor::ops {

class command_line final : public app::command_line_extension {
public:
    /// @param http the binary's HTTP command line, on whose listener `/metrics` and `/ops` are
    ///        served; without it only the journal flags exist
    explicit command_line(std::shared_ptr<app::http_command_line> http = nullptr);

    std::vector<app::extra_option> flags() override;
    std::string help() const override;
    std::string check(bool serving) override;
    bool configure(mcp::server& srv) override;
    bool start(mcp::server& srv) override;

private:
    std::shared_ptr<app::http_command_line> http_;
    ops::journal_options journal_opts_;
    bool journal_ = false;
    bool metrics_ = true;
    std::string ops_token_;
    ops::log_options log_opts_;
    std::shared_ptr<ops::log_writer> log_;
};

}  // namespace candor::ops
