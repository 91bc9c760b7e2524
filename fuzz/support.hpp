// SPDX-License-Identifier: BSL-1.0
#pragma once
// What the fuzz targets share: an invariant check that stops the run, and the fixed key ring
// that seals what a target opens.

#include <candor/seal/key_ring.hpp>

#include <cstdlib>
#include <string>

namespace fuzz_support {

/// Abort (a finding) when an invariant does not hold.
inline void check(bool ok) {
    if (!ok) std::abort();
}

/// One fixed 32-byte key, so that sealed inputs from the corpus open in every run.
inline const candor::seal::key_ring& keys() {
    static const candor::seal::key_ring ring =
        candor::seal::key_ring::from_keys({{"fuzz", std::string(32, 'k')}}).value();
    return ring;
}

}  // namespace fuzz_support
