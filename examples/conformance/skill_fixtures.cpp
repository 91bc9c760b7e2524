// SPDX-License-Identifier: BSL-1.0
// The skills the conformance suite's skills scenarios read: `git-workflow` at the top, and
// `refunds` under the prefix `acme/billing` with supporting files in `templates/` and
// `templates/regional/` (the suite descends into a subdirectory).
#include "fixtures.hpp"

#include <candor/skills/skill.hpp>

#include <stdexcept>

namespace conformance {

namespace {

void publish(candor::mcp::server& srv, const char* path, std::vector<candor::skills::skill_file> files) {
    auto skill = candor::skills::make_skill(path, std::move(files));
    if (!skill) throw std::runtime_error(skill.error().code + ": " + skill.error().message);
    srv.add_skill(std::move(*skill)).value();
}

}  // namespace

void add_skill_fixtures(candor::mcp::server& srv) {
    publish(
        srv, "git-workflow",
        {{"SKILL.md",
          "---\n"
          "name: git-workflow\n"
          "description: Follow this team's Git conventions for branching and commits\n"
          "---\n\n"
          "# Git workflow\n\nBranch from `main`, one topic per branch; write commit messages in the imperative.\n"}});
    publish(srv, "acme/billing/refunds",
            {{"SKILL.md",
              "---\n"
              "name: refunds\n"
              "description: \"Process customer refund requests per company policy\"\n"
              "license: Apache-2.0\n"
              "metadata:\n"
              "  version: \"2.1\"\n"
              "  owner: billing\n"
              "---\n\n"
              "# Refunds\n\nPick the matching letter from `templates/` and fill it in.\n"},
             {"templates/approved.md", "Dear {{name}},\n\nYour refund of {{amount}} was approved.\n"},
             {"templates/declined.md", "Dear {{name}},\n\nWe cannot refund this order: {{reason}}.\n"},
             {"templates/regional/eu.md", "Under EU consumer law you may withdraw within 14 days.\n"}});
}

}  // namespace conformance
