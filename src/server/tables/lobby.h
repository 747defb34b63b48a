// Finding an opponent, a part of its own: who waits here (or, with instances
// sharing a bus, in the shared queue), the pairing of two compatible
// seekers, and the counts the seekers see. It owns the queue, the seekers'
// connections and its limits on seeking; what a pairing becomes (a table,
// its game, its players told) is the tables' business, asked through
// Lobby::Tables. It runs on the hub's executor, and asks the shared queue
// on the bus's questions' thread (never waiting for it); a test may drive it
// alone.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/buses/bus.h"
#include "server/address_limiter.h"
#include "server/tables/client.h"
#include "server/tables/matchmaker.h"

namespace makruk::server {

class Lobby {
 public:
  // What the lobby asks of the tables.
  struct Tables {
    // Makes the table of a pairing and tells both seekers (their connections
    // taken from the lobby with take(); a seeker at another instance through
    // the bus).
    std::function<void(const Pairing&)> pair;
    // People at a running game now, for the counts.
    std::function<int64_t()> playing;
    // Whether an address may make one more table now: a pairing is one.
    std::function<bool(const std::string& ip)> may_create;
  };
  struct Limits {
    int seek_per_minute = 20;       // requests to find an opponent, per address
    size_t seeks_per_address = 4;   // people waiting from one address
    bool pair_same_address = false;  // seekers from one address may be paired with each other
    int64_t update_delay_ms = 200;  // the counts go out to the seekers at most this often
  };
  using Post = std::function<void(std::function<void()>)>;
  using Defer = std::function<void(int64_t delay_ms, std::function<void()>)>;

  Lobby(Tables tables, std::function<int64_t()> now, Post post);

  void set_limits(const Limits& limits);
  // Runs a function on the hub's executor after a delay (without it, the
  // counts' update is posted at once).
  void set_defer(Defer defer) { defer_ = std::move(defer); }
  // Instances sharing a bus share the queue there, and count seeks together.
  void set_bus(Bus* bus);

  // A seek: refused (told to the connection), paired at once with the
  // longest-waiting compatible seeker, or queued. `at_front`, asked only once
  // the seek has passed its limits, says whether it goes to the front of the
  // queue (0 as its time) instead of the back.
  void seek(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& name,
            const std::string& browser, const std::function<bool()>& at_front);
  // Leaves the queue (the page cancelled, `tell`: answered; or it closed).
  void unseek(const std::shared_ptr<Client>& c, bool tell);
  // A seeker here was paired at another instance: `message` is what it gets.
  void paired_elsewhere(uint64_t connection, const std::string& message);
  // A seeker's connection, still in the lobby or taken out of it for its
  // table (nullptr when it has gone).
  std::shared_ptr<Client> seeker(uint64_t id) const;
  std::shared_ptr<Client> take(uint64_t id);
  // The counts changed: they go to the seekers soon, once for any number of
  // changes in between.
  void changed();
  // {"waiting", "playing"}: with a bus, the shared queue's length as last
  // learned (the form with `then` asks it first, off this thread).
  boost::json::object counts() const;
  void counts(std::function<void(boost::json::object)> then);
  size_t seekers() const { return seekers_.size(); }
  // Forgets the limits' windows that have emptied.
  void sweep(int64_t now) { seeks_.sweep(now); }
  int limits_asking() const { return seeks_.asking(); }  // see AddressLimiter
  void count_with(const Lobby& first) { seeks_.count_with(first.seeks_); }  // the hubs of one process

 private:
  // A seek that passed its limits, here alone.
  void seek_here(const std::shared_ptr<Client>& c, Seek mine);
  // With a bus, on its questions' thread: pairs with the longest-waiting
  // compatible seeker at any instance, or joins the shared queue (or is
  // refused there, when `waiting` is false and its address has as many
  // waiting as it may); then, here, the seeker is told. When the bus does
  // not answer, the seek is this instance's alone meanwhile.
  struct SharedSeek;
  void seek_shared(const std::shared_ptr<Client>& c, Seek mine, bool waiting);
  static SharedSeek find_shared(Bus& bus, const Seek& mine, const std::vector<std::string>& queue,
                                size_t per_address, bool same_address);
  void shared_seek_done(const std::weak_ptr<Client>& c, Seek mine, const std::string& entry, SharedSeek r);
  void send_counts(boost::json::object counts);
  void replaced(uint64_t id);  // tells a seeker its seek was replaced by a newer one of its browser

  Tables tables_;
  std::function<int64_t()> now_;
  Post post_;
  Defer defer_;
  Limits limits_;
  Bus* bus_ = nullptr;
  Matchmaker matchmaker_;
  AddressLimiter seeks_;
  std::map<uint64_t, std::weak_ptr<Client>> seekers_;  // by client id
  // This instance's entries in the shared queue (or on their way to it), by client id.
  std::map<uint64_t, std::string> shared_seeks_;
  std::optional<size_t> shared_waiting_;  // the shared queue's length, as last learned
  bool update_pending_ = false;
};

}  // namespace makruk::server
