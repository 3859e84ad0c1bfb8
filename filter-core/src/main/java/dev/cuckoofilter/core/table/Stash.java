package dev.cuckoofilter.core.table;

import java.util.Arrays;

/**
 * A few fingerprints that lost a kick chain, each with its canonical bucket (the smaller of its two
 * candidate buckets). Lookups consult it only while it is non-empty, a branch that predicts
 * perfectly. Deletes move stashed entries back into the table as soon as a slot frees up.
 */
public final class Stash {
  /** Largest stash the format allows. */
  public static final int MAX_CAPACITY = 64;

  private final long[] buckets;
  private final long[] fingerprints;
  private int size;

  public Stash(int capacity) {
    if (capacity < 0 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException("stashCapacity must be between 0 and " + MAX_CAPACITY + ", got " + capacity);
    }
    this.buckets = new long[capacity];
    this.fingerprints = new long[capacity];
  }

  public int capacity() {
    return buckets.length;
  }

  public int size() {
    return size;
  }

  public long bucket(int i) {
    return buckets[i];
  }

  public long fingerprint(int i) {
    return fingerprints[i];
  }

  /** Appends an entry; false when full. */
  public boolean add(long canonicalBucket, long fp) {
    if (size == buckets.length) {
      return false;
    }
    buckets[size] = canonicalBucket;
    fingerprints[size] = fp;
    size++;
    return true;
  }

  public int count(long canonicalBucket, long fp) {
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (buckets[i] == canonicalBucket && fingerprints[i] == fp) {
        n++;
      }
    }
    return n;
  }

  /** Removes the first matching entry, keeping the others in order. */
  public boolean remove(long canonicalBucket, long fp) {
    for (int i = 0; i < size; i++) {
      if (buckets[i] == canonicalBucket && fingerprints[i] == fp) {
        removeAt(i);
        return true;
      }
    }
    return false;
  }

  public void removeAt(int i) {
    System.arraycopy(buckets, i + 1, buckets, i, size - i - 1);
    System.arraycopy(fingerprints, i + 1, fingerprints, i, size - i - 1);
    size--;
  }

  public Stash copy() {
    Stash s = new Stash(buckets.length);
    s.copyFrom(this);
    return s;
  }

  public void copyFrom(Stash other) {
    System.arraycopy(other.buckets, 0, buckets, 0, other.size);
    System.arraycopy(other.fingerprints, 0, fingerprints, 0, other.size);
    size = other.size;
  }

  public void clear() {
    size = 0;
  }

  public boolean sameEntries(Stash other) {
    return size == other.size
        && Arrays.equals(buckets, 0, size, other.buckets, 0, size)
        && Arrays.equals(fingerprints, 0, size, other.fingerprints, 0, size);
  }
}
