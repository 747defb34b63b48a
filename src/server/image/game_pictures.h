// A game's pictures and its link preview: the PNGs drawn for a game's link
// (kept a while, a game's last position changing only with a move), and the
// Open Graph tags that /g/ID's page carries so that chat apps (LINE and the
// like) show the board, the players and the result.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/image/position_image.h"
#include "server/records/game_records.h"

namespace makruk::server {

// The two pictures of a game: a square one to share (720×720) and the link
// preview's card (1200×630, the shape Open Graph readers show largest).
enum class PictureKind { Square, Card };
ImageLayout picture_layout(PictureKind kind);

// The picture of a game's position now, as PNG; empty (and *error) if it cannot be drawn.
std::string draw_game_picture(const GameSnapshot& game, PictureKind kind, std::string* error);

// Recently drawn pictures by game, kind and position (thread-safe, least
// recently used out first).
class PictureCache {
 public:
  explicit PictureCache(size_t capacity = 48) : capacity_(capacity) {}
  static std::string key(const GameSnapshot& game, PictureKind kind);
  std::shared_ptr<const std::string> get(const std::string& key);
  void put(const std::string& key, std::shared_ptr<const std::string> png);

 private:
  size_t capacity_;
  std::mutex mutex_;
  std::list<std::pair<std::string, std::shared_ptr<const std::string>>> order_;  // most recent first
  std::unordered_map<std::string, decltype(order_)::iterator> index_;
};

// index.html with the game's title and Open Graph tags in its head (the
// players, the result, the picture at `public_url`).
std::string game_page_html(const std::string& index_html, const GameSnapshot& game, const std::string& public_url);

// Text made safe inside an HTML attribute or element.
std::string html_escape(std::string_view text);

}  // namespace makruk::server
