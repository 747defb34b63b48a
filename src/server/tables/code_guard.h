// The code guard, a part of its own: who may look up a table's code (or a
// game's link) now, so that codes cannot be enumerated. Each address may
// guess wrong so many times a minute; past that, a lookup goes on only with
// a proof of work (each further miss asks more work of the address) or with
// a credential (a seat's token, an invite key: no guess), while wrong
// credentials are few too. Its limits count across the hubs of a process and
// the instances of a site. Thread-safe: the games' records ask it from their
// own threads.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "server/address_limiter.h"
#include "server/buses/bus.h"

namespace makruk::server {

class CodeGuard {
 public:
  struct Limits {
    int wrong_codes_per_minute = 10;  // lookups of codes that do not exist
    int proof_bits = 18;              // the work asked past that (0: none lets a lookup through)
  };
  explicit CodeGuard(std::function<int64_t()> now) : now_(std::move(now)) {}
  void set_limits(const Limits& limits) { limits_ = limits; }
  const Limits& limits() const { return limits_; }

  // Whether `ip` may look up a code now, counting a wrong one first when `wrong`.
  bool guess_allowed(const std::string& ip, bool wrong = false);
  // Whether `ip` may look up a code with a credential: while it may guess,
  // or while its wrong credentials past that are fewer than the wrong codes
  // it may have.
  bool credential_allowed(const std::string& ip);
  // A wrong credential: it counts once the address may guess no more.
  void wrong_credential(const std::string& ip);

  // A proof of work for a lookup while `ip` may guess no more:
  // "STAMP.NONCE", STAMP being "MS.RANDOM" (a challenge given, or any), MS
  // no more than a minute old, the SHA-256 of the whole text starting with
  // proof_bits() zero bits, and each stamp used once. So a valid code typed
  // by hand always opens after a moment's work in the browser, while every
  // further wrong guess costs that work.
  bool proof_valid(const std::string& proof, const std::string& ip);
  // A code looked up with a proof was wrong: the address's work grows.
  void proof_missed(const std::string& ip);
  int proof_bits(const std::string& ip);
  std::string proof_challenge();

  // With other instances, the limits count across them (named on the bus);
  // the hubs of one process count together with the first's.
  void share(Bus* bus);
  void count_with(CodeGuard& first);
  // Its counts asked of the bus and not yet answered; forgets the windows
  // that have emptied.
  int asking();
  void sweep(int64_t now);

 private:
  std::array<std::pair<AddressLimiter*, const char*>, 4> limiters();

  std::function<int64_t()> now_;
  Limits limits_;
  AddressLimiter wrong_codes_;
  // Wrong codes looked up with a proof of work (each raises the work asked
  // of that address); the stamps already used.
  AddressLimiter proof_misses_, proof_stamps_;
  AddressLimiter credentials_;  // wrong tokens and keys past the wrong-code limit
};

}  // namespace makruk::server
