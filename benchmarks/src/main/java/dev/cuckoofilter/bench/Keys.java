package dev.cuckoofilter.bench;

import java.util.SplittableRandom;

/** Deterministic random 64-bit keys: members are drawn from one stream, non-members from another. */
public final class Keys {
  private Keys() {}

  public static long[] members(int n) {
    return random(n, 0x5EED_0001L);
  }

  /** Keys that are (with overwhelming probability) not members. */
  public static long[] nonMembers(int n) {
    return random(n, 0x5EED_0002L);
  }

  /** Half members, half non-members, shuffled: the 50-50 lookup workload. */
  public static long[] mixed(long[] members, long[] nonMembers, int n) {
    long[] keys = new long[n];
    SplittableRandom r = new SplittableRandom(0x5EED_0003L);
    for (int i = 0; i < n; i++) {
      keys[i] = r.nextBoolean() ? members[r.nextInt(members.length)] : nonMembers[r.nextInt(nonMembers.length)];
    }
    return keys;
  }

  /** A random permutation of the members: positive lookups in an order unrelated to insertion. */
  public static long[] shuffled(long[] members, int n) {
    long[] keys = new long[n];
    SplittableRandom r = new SplittableRandom(0x5EED_0004L);
    for (int i = 0; i < n; i++) {
      keys[i] = members[r.nextInt(members.length)];
    }
    return keys;
  }

  private static long[] random(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = r.nextLong();
    }
    return keys;
  }
}
