// Finding an opponent online: a queue of people who want a game, paired first
// come, first served within compatible choices. Pure logic (no network, no
// clock of its own), so that a test drives it directly; the hub owns one.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace makruk::server {

// What a seeker wants. An empty field takes any value ("widened").
struct SeekWish {
  std::string variant;   // "makruk" | "ouk" | "" (either)
  std::string counting;  // "auto" | "declare" | ""
  std::string mode;      // "live" | "turn" | ""
};

struct Seek {
  uint64_t id = 0;      // the connection's id, to cancel it
  std::string browser;  // one entry per browser: a new seek replaces the old one
  std::string ip;
  std::string name;
  SeekWish wish;
  int64_t since = 0;     // ms; the queue is in this order (0: sent back to its front)
  std::string instance;  // with instances sharing a queue: the one the seeker is connected to
};

// Two compatible seekers, the one that waited longer first.
struct Pairing {
  Seek first, second;
  SeekWish agreed;  // every field filled: what the table will be
};

class Matchmaker {
 public:
  // Adds a seek, replacing any other of the same browser or connection, and
  // pairs it with the longest-waiting compatible seek of another browser if
  // there is one (both then leave the queue). `replaced` gets the id of a
  // seek this one replaced (0: none).
  std::optional<Pairing> seek(Seek s, uint64_t* replaced = nullptr);
  // Whether seekers from one address may be paired with each other (else a
  // seek passes over those from its own address).
  bool pair_same_address = true;
  // Leaves the queue; false when the id was not in it.
  bool cancel(uint64_t id);
  size_t waiting() const { return queue_.size(); }
  // How many wait from one address.
  size_t waiting_from(const std::string& ip) const;
  const std::deque<Seek>& queue() const { return queue_; }

  // Whether two wishes can meet, and what they agree on (the first's choice
  // where only it has one, the usual defaults where neither has).
  static std::optional<SeekWish> agree(const SeekWish& a, const SeekWish& b);

 private:
  std::deque<Seek> queue_;  // oldest first
};

}  // namespace makruk::server
