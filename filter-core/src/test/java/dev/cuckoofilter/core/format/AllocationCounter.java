package dev.cuckoofilter.core.format;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.ManagementFactory;

/**
 * The current thread's allocated bytes, for bounds on what the reader allocates. Where the JVM does not
 * support or enable the counter it reads -1, and every bound would pass without measuring anything: so
 * this fails instead, and {@link #assertMeasurable} checks that the counter sees a known allocation.
 */
final class AllocationCounter {
  private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  /** Keeps the sanity check's array reachable, so the JIT cannot drop the allocation. */
  private static volatile byte[] sink;

  private AllocationCounter() {}

  /** Bytes this thread has allocated so far; fails if the counter is off. Allocates nothing itself. */
  static long allocated() {
    long bytes = THREADS instanceof com.sun.management.ThreadMXBean counter
        ? counter.getThreadAllocatedBytes(Thread.currentThread().getId()) : -1;
    if (bytes < 0) {
      fail("thread allocation counter unavailable (" + bytes + "): allocation bounds would pass unmeasured");
    }
    return bytes;
  }

  /** Fails unless the counter is supported, enabled and sees a 1 MiB array; call before measuring. */
  static void assertMeasurable() {
    if (!(THREADS instanceof com.sun.management.ThreadMXBean counter)) {
      throw new AssertionError("this JVM's ThreadMXBean (" + THREADS.getClass().getName() + ") does not count "
          + "allocated bytes; the allocation bounds need HotSpot's com.sun.management.ThreadMXBean");
    }
    assertTrue(counter.isThreadAllocatedMemorySupported(), "this JVM does not support thread allocation counting");
    assertTrue(counter.isThreadAllocatedMemoryEnabled(), "thread allocation counting is disabled in this JVM");
    long before = allocated();
    sink = new byte[1 << 20];
    long seen = allocated() - before;
    sink = null;
    assertTrue(seen >= 1 << 20, "the allocation counter saw " + seen + " bytes of a new 1 MiB array");
  }
}
