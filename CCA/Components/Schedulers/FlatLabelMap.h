#pragma once
// A hash table from (label, id) keys (LabelKey.h) with its entries in one
// array: open addressing, linear probing, erased slots left as tombstones
// until the next rehash. The warehouses look their grid variables up
// several times per task; std::unordered_map's node per entry cost a cache
// miss per lookup (the node), and an allocation per insert (perf record:
// most of a lookup's time in the load of the node). Used where nothing
// keeps a pointer to an entry across an insert: an insert may move every
// entry (std::unordered_map keeps them in place); an erase moves none.
// Iteration and erase(iterator) work as std::unordered_map's do.

#include "CCA/Components/Schedulers/LabelKey.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace tessera {

template <class Value>
class FlatLabelMap {
 public:
  using key_type = LabelKey;
  using mapped_type = Value;
  using value_type = std::pair<const LabelKey, Value>;

 private:
  enum class State : std::uint8_t { Empty, Full, Erased };
  struct Slot {
    State state = State::Empty;
    alignas(value_type) unsigned char bytes[sizeof(value_type)];
    value_type& entry() { return *std::launder(reinterpret_cast<value_type*>(bytes)); }
    const value_type& entry() const {
      return *std::launder(reinterpret_cast<const value_type*>(bytes));
    }
  };

  template <bool Const>
  class Iterator {
    using SlotPtr = std::conditional_t<Const, const Slot*, Slot*>;

   public:
    using value_type = FlatLabelMap::value_type;
    using reference = std::conditional_t<Const, const value_type&, value_type&>;
    using pointer = std::conditional_t<Const, const value_type*, value_type*>;
    using difference_type = std::ptrdiff_t;
    using iterator_category = std::forward_iterator_tag;

    Iterator() = default;
    Iterator(SlotPtr at, SlotPtr end) : m_at(at), m_end(end) { skip(); }
    // A const iterator from a mutable one.
    template <bool C = Const, class = std::enable_if_t<C>>
    Iterator(const Iterator<false>& other) : m_at(other.m_at), m_end(other.m_end) {}

    reference operator*() const { return m_at->entry(); }
    pointer operator->() const { return &m_at->entry(); }
    Iterator& operator++() {
      ++m_at;
      skip();
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.m_at == b.m_at; }
    friend bool operator!=(const Iterator& a, const Iterator& b) { return a.m_at != b.m_at; }

   private:
    friend class FlatLabelMap;
    template <bool>
    friend class Iterator;
    void skip() {
      while (m_at != m_end && m_at->state != State::Full) ++m_at;
    }
    SlotPtr m_at = nullptr;
    SlotPtr m_end = nullptr;
  };

 public:
  using iterator = Iterator<false>;
  using const_iterator = Iterator<true>;

  FlatLabelMap() = default;
  FlatLabelMap(const FlatLabelMap& other) {
    try {
      *this = other;
    } catch (...) {
      destroyAll();  // no destructor runs for a constructor that throws
      throw;
    }
  }
  FlatLabelMap(FlatLabelMap&& other) noexcept { swap(other); }
  FlatLabelMap& operator=(const FlatLabelMap& other) {
    if (this == &other) return *this;
    clear();
    for (const value_type& entry : other)
      emplace(entry.first, entry.second);
    return *this;
  }
  FlatLabelMap& operator=(FlatLabelMap&& other) noexcept {
    FlatLabelMap(std::move(other)).swap(*this);
    return *this;
  }
  ~FlatLabelMap() { destroyAll(); }

  void swap(FlatLabelMap& other) noexcept {
    std::swap(m_slots, other.m_slots);
    std::swap(m_capacity, other.m_capacity);
    std::swap(m_size, other.m_size);
    std::swap(m_erased, other.m_erased);
  }

  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }

  iterator begin() { return {m_slots.get(), m_slots.get() + m_capacity}; }
  iterator end() { return {m_slots.get() + m_capacity, m_slots.get() + m_capacity}; }
  const_iterator begin() const { return {m_slots.get(), m_slots.get() + m_capacity}; }
  const_iterator end() const {
    return {m_slots.get() + m_capacity, m_slots.get() + m_capacity};
  }

  iterator find(const LabelKey& key) {
    Slot* slot = lookup(key);
    return slot == nullptr ? end() : iterator(slot, m_slots.get() + m_capacity);
  }
  const_iterator find(const LabelKey& key) const {
    const Slot* slot = const_cast<FlatLabelMap*>(this)->lookup(key);
    return slot == nullptr ? end() : const_iterator(slot, m_slots.get() + m_capacity);
  }

  Value& at(const LabelKey& key) {
    Slot* slot = lookup(key);
    if (slot == nullptr) throw std::out_of_range("FlatLabelMap::at: no such key");
    return slot->entry().second;
  }
  const Value& at(const LabelKey& key) const { return const_cast<FlatLabelMap*>(this)->at(key); }

  // Inserts (key, Value(args...)) unless the key is there: (its entry, whether inserted).
  template <class... Args>
  std::pair<iterator, bool> emplace(const LabelKey& key, Args&&... args) {
    if (Slot* found = lookup(key)) return {iterator(found, m_slots.get() + m_capacity), false};
    if ((m_size + m_erased + 1) * 2 > m_capacity) rehash();
    Slot* slot = freeSlotFor(key);
    if (slot->state == State::Erased) --m_erased;
    ::new (static_cast<void*>(slot->bytes))
        value_type(std::piecewise_construct, std::forward_as_tuple(key),
                   std::forward_as_tuple(std::forward<Args>(args)...));
    slot->state = State::Full;
    ++m_size;
    return {iterator(slot, m_slots.get() + m_capacity), true};
  }
  Value& operator[](const LabelKey& key) { return emplace(key).first->second; }

  iterator erase(const_iterator at) {
    Slot* slot = const_cast<Slot*>(at.m_at);
    slot->entry().~value_type();
    slot->state = State::Erased;
    --m_size;
    ++m_erased;
    return iterator(slot + 1, m_slots.get() + m_capacity);
  }
  iterator erase(iterator at) { return erase(const_iterator(at)); }
  std::size_t erase(const LabelKey& key) {
    Slot* slot = lookup(key);
    if (slot == nullptr) return 0;
    erase(const_iterator(slot, m_slots.get() + m_capacity));
    return 1;
  }

  void clear() {
    destroyAll();
    m_slots.reset();
    m_capacity = m_size = m_erased = 0;
  }

 private:
  static std::size_t hash(const LabelKey& key) {
    // splitmix64's finaliser over the label's address and the id: the low
    // bits (the probe's start) depend on every bit of both.
    std::uint64_t x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key.first)) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.second)) << 32);
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return static_cast<std::size_t>(x);
  }

  Slot* lookup(const LabelKey& key) {
    if (m_size == 0) return nullptr;
    const std::size_t mask = m_capacity - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      Slot& slot = m_slots[i];
      if (slot.state == State::Empty) return nullptr;
      if (slot.state == State::Full && slot.entry().first == key) return &slot;
    }
  }

  // Where `key`, known absent, goes: the first tombstone or empty slot of its probe.
  Slot* freeSlotFor(const LabelKey& key) {
    const std::size_t mask = m_capacity - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask)
      if (m_slots[i].state != State::Full) return &m_slots[i];
  }

  // At most a quarter full after it (tombstones dropped).
  void rehash() {
    std::size_t capacity = 16;
    while (capacity < 4 * (m_size + 1))
      capacity *= 2;
    // Allocated first: if that throws, the table is as it was.
    std::unique_ptr<Slot[]> old = std::make_unique<Slot[]>(capacity);
    std::swap(old, m_slots);
    const std::size_t oldCapacity = m_capacity;
    m_capacity = capacity;
    m_erased = 0;
    for (std::size_t i = 0; i < oldCapacity; ++i) {
      Slot& from = old[i];
      if (from.state != State::Full) continue;
      Slot* to = freeSlotFor(from.entry().first);
      ::new (static_cast<void*>(to->bytes)) value_type(std::move(from.entry()));
      to->state = State::Full;
      from.entry().~value_type();
    }
  }

  void destroyAll() {
    for (std::size_t i = 0; i < m_capacity; ++i)
      if (m_slots[i].state == State::Full) m_slots[i].entry().~value_type();
  }

  std::unique_ptr<Slot[]> m_slots;
  std::size_t m_capacity = 0;  // a power of two, or 0
  std::size_t m_size = 0;
  std::size_t m_erased = 0;  // tombstones
};

}  // namespace tessera
