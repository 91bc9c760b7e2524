// SPDX-License-Identifier: BSL-1.0
#include <candor/evidence/request_state.hpp>

namespace candor::evidence {

namespace {

constexpr std::string_view purpose = "candor.request-state.v1";

class ring_sealer final : public mcp::state_sealer {
public:
    explicit ring_sealer(std::shared_ptr<const seal::key_ring> keys) : keys_(std::move(keys)) {}

    std::string seal(std::string_view payload) const override { return keys_->seal(purpose, payload); }

    std::optional<std::string> open(std::string_view sealed) const override {
        auto payload = keys_->open(purpose, sealed);
        if (!payload) return std::nullopt;
        return std::move(*payload);
    }

    std::string digest(std::string_view text) const override { return seal::fingerprint(purpose, text); }

private:
    std::shared_ptr<const seal::key_ring> keys_;
};

}  // namespace

std::shared_ptr<const mcp::state_sealer> state_sealer_from(std::shared_ptr<const seal::key_ring> keys) {
    return std::make_shared<const ring_sealer>(std::move(keys));
}

}  // namespace candor::evidence
