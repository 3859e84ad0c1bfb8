package dev.cuckoofilter.bench;

/** The operations benchmarked, over 64-bit keys, for every filter library compared. */
public interface BenchFilter {
  /** Inserts a key; false if the filter refused it (full). */
  boolean add(long key);

  boolean mightContain(long key);

  /** Deletes a key; only for filters that support deletion. */
  default boolean remove(long key) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot delete");
  }

  /** Bits of the filter's data (table or bit array), without object headers. */
  long bitSize();
}
