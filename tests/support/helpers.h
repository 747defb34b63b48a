// Helpers shared by the rules-core unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/game.h"

namespace makruk::testing_helpers {

inline Square sq(const char* name) { return make_square(name[0] - 'a', name[1] - '1'); }

inline Position from_fen(std::string_view fen, Variant v = Variant::Makruk) {
  Position pos;
  std::string error;
  EXPECT_TRUE(pos.set(fen, v, Counting::Automatic, &error)) << fen << ": " << error;
  return pos;
}

// The action is refused with an error and changes nothing: position, count,
// record, result, plies and repetitions all stay as they were.
inline ::testing::AssertionResult Refused(Game& g, std::string_view action) {
  const std::string fen = g.position().fen();
  const Count count = g.position().count();
  const std::vector<std::string> record = g.record();
  const Result result = g.result();
  const Reason reason = g.reason();
  const int plies = g.plies(), reps = g.repetitions();
  std::string err;
  auto fail = [&](const char* what) {
    return ::testing::AssertionFailure() << "'" << action << "' " << what;
  };
  if (g.apply(action, &err)) return fail("was accepted");
  if (err.empty()) return fail("was refused without an error");
  if (g.position().fen() != fen) return fail("changed the FEN");
  if (!(g.position().count() == count)) return fail("changed the count");
  if (g.record() != record) return fail("changed the record");
  if (g.result() != result || g.reason() != reason) return fail("changed the result");
  if (g.plies() != plies || g.repetitions() != reps) return fail("changed the plies or repetitions");
  return ::testing::AssertionSuccess();
}

}  // namespace makruk::testing_helpers
