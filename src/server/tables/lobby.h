// Finding an opponent, a part of its own: who waits here (or, with instances
// sharing a bus, in the shared queue), the pairing of two compatible
// seekers, and the counts the seekers see. It owns the queue, the seekers'
// connections (the WebSocket connections that did not open at a table: it
// hears their messages and their closing) and its limits on seeking; what a
// pairing becomes (a table, its game, its players told) is the tables'
// business, asked through Lobby::Tables, at whatever hub holds the table.
// It runs on an executor of its own, never a table's; it asks the shared
// queue on the bus's questions' thread (never waiting for it); a test may
// drive it alone.
#pragma once

#include <array>
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

class Lobby : public Listener {
 public:
  // What the lobby asks of the tables. Each may answer on another thread
  // (the hub holding the table): the lobby goes back to its own.
  struct Tables {
    // Makes the table of a pairing and tells both seekers: one connected
    // here through its connection (taken from the lobby; nullptr when it has
    // gone), one at another instance (its Seek's instance, not empty) through
    // the bus.
    std::function<void(const Pairing&, std::array<std::shared_ptr<Client>, 2> here)> pair;
    // People at a running game now, for the counts.
    std::function<void(std::function<void(int64_t)> done)> playing;
    // Whether an address may make one more table now: a pairing is one.
    // Asked on the lobby's executor.
    std::function<bool(const std::string& ip)> may_create;
    // Whether a seek naming a table (its code, and its seat's token) goes to
    // the front of the queue: once, for the one left by a pairing called off
    // for the other's missing first move.
    std::function<void(const std::shared_ptr<Client>&, const std::string& code, const std::string& token,
                       std::function<void(bool)> done)>
        at_front;
    // "Not now" to a pairing, said on the lobby's connection (the table
    // answers it).
    std::function<void(const std::shared_ptr<Client>&, const std::string& code, const std::string& token)> decline;
  };
  struct Limits {
    int seek_per_minute = 20;       // requests to find an opponent, per address
    size_t seeks_per_address = 4;   // people waiting from one address
    bool pair_same_address = false;  // seekers from one address may be paired with each other
    int64_t update_delay_ms = 200;  // the counts go out to the seekers at most this often
  };
  using Post = std::function<void(std::function<void()>)>;
  using Defer = std::function<void(int64_t delay_ms, std::function<void()>)>;

  // `post` runs a function on the lobby's executor.
  Lobby(Tables tables, std::function<int64_t()> now, Post post);

  void set_limits(const Limits& limits);
  // Runs a function on the lobby's executor after a delay (without it, the
  // counts' update is posted at once).
  void set_defer(Defer defer) { defer_ = std::move(defer); }
  // Instances sharing a bus share the queue there, and count seeks together.
  void set_bus(Bus* bus);

  // A lobby connection's message ("seek", "unseek", "decline-pairing",
  // "ping"; anything else is refused: it belongs at a table), after the
  // connection's rate limit; and its closing (it leaves the queue).
  void on_message(const std::shared_ptr<Client>& c, const std::string& text) override;
  void on_close(const std::shared_ptr<Client>& c) override;

  // A seek: refused (told to the connection), paired at once with the
  // longest-waiting compatible seeker, or queued. A seek naming a table
  // (`front`: its code and token) asks the tables, once the seek has passed
  // its limits, whether it goes to the front of the queue (0 as its time)
  // instead of the back.
  struct Front {
    std::string code, token;
  };
  void seek(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& name,
            const std::string& browser, std::optional<Front> front = std::nullopt);
  // Leaves the queue (the page cancelled, `tell`: answered; or it closed).
  void unseek(const std::shared_ptr<Client>& c, bool tell);
  // A seeker here was paired at another instance: `message` is what it gets.
  // Any thread may call it (it goes on on the lobby's executor).
  void paired_elsewhere(uint64_t connection, std::string message);
  // A seeker's connection, still in the lobby (nullptr when it has gone).
  std::shared_ptr<Client> seeker(uint64_t id) const;
  // The counts changed: they go to the seekers soon, once for any number of
  // changes in between.
  void changed();
  // {"waiting", "playing"} (GET /api/lobby): with a bus, the shared queue's
  // length is asked first, off this executor, and the tables count their
  // players; `then` runs on the lobby's executor.
  void counts(std::function<void(boost::json::object)> then);
  size_t waiting() const;  // here (or, with a bus, in the shared queue as last learned)
  size_t seekers() const { return seekers_.size(); }  // connections in the lobby now (for /metrics)
  int limits_asking() const { return seeks_.asking(); }  // see AddressLimiter

 private:
  // A seek past its limits (with its time: 0 at the front).
  void seek_checked(const std::shared_ptr<Client>& c, Seek mine, bool waiting);
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
  // Hands a pairing to the tables, with the connections of its seekers here.
  void pair(Pairing pairing);
  std::shared_ptr<Client> take(uint64_t id);
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
  int64_t swept_at_ = 0;     // when the limits' empty windows were last forgotten
  uint64_t next_id_ = 0;     // the lobby's connections' ids (the matchmaker's keys)
  std::map<uint64_t, std::weak_ptr<Client>> seekers_;  // by client id
  // Seeks asking the tables for the front, by client id: the latest's number.
  std::map<uint64_t, uint64_t> asking_front_;
  uint64_t fronts_asked_ = 0;
  // This instance's entries in the shared queue (or on their way to it), by client id.
  std::map<uint64_t, std::string> shared_seeks_;
  std::optional<size_t> shared_waiting_;  // the shared queue's length, as last learned
  bool update_pending_ = false;
};

}  // namespace makruk::server
