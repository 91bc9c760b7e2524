#include <candor/error/issue.hpp>

namespace candor {

std::string_view to_string(layer l) noexcept {
    switch (l) {
        case layer::intake: return "intake";
        case layer::contract: return "contract";
        case layer::business: return "business";
        case layer::external: return "external";
    }
    return "contract";
}

}  // namespace candor
