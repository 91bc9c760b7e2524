// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Everything a tool author needs for a typed tool on `candor::core`: the server and
/// `add_tool`, typed tools and their contracts, envelopes, the call context, and the standard
/// command line (`app::run`).
///
/// The other components have their own headers, included when they are linked: collections
/// (`candor/paging/collection.hpp`, `candor::paging`), tools with layers — invariants, external
/// checks, evidence, approval (`candor/validation/layers.hpp`), `--http` (`candor/http/command_line.hpp`,
/// `candor::http`), the operators' flags (`candor/ops/command_line.hpp`, `candor::ops`).

#include <candor/app/command_line.hpp>
#include <candor/contract/contract.hpp>
#include <candor/envelope/envelope.hpp>
#include <candor/mcp/call_context.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>
#include <candor/mcp/typed_tool.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/describe/class.hpp>
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
