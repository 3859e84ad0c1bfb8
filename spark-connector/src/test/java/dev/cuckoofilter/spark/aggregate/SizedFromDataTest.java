package dev.cuckoofilter.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CanonicalBuilder;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The final step of a build sized from the data: replaying the partial results once per range of buckets
 * gives the bytes of a plain-Java canonical build of the distinct keys, for any number of ranges.
 */
class SizedFromDataTest {
  @ParameterizedTest(name = "{0} codes per pass")
  @ValueSource(ints = {1_000, 7_777, 50_000, CuckooFilterAggregate.CODES_PER_PASS})
  void givesTheCanonicalFilterOfTheDistinctKeysInAnyNumberOfPasses(int codesPerPass) {
    int distinct = 60_000;
    // Four partial results whose keys overlap, as a fact table's foreign keys do across partitions.
    List<EntrySetBuffer> parts = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      EntrySetBuffer part = new EntrySetBuffer();
      for (long key = p * 10_000L; key < distinct; key += 1 + p) {
        part.add(CuckooHash.hashLong(key, CuckooFilter.DEFAULT_SEED));
      }
      parts.add(EntrySetBuffer.deserialize(part.serialize()));
    }
    EntrySetBuffer all = new EntrySetBuffer();
    parts.forEach(all::merge);
    assertEquals(distinct, all.count());

    CuckooFilter built = CuckooFilterAggregate.sizedFromData(all, 0.01, codesPerPass);

    CanonicalBuilder plain = new CanonicalBuilder(
        CuckooFilter.builder().expectedItems(distinct).fpp(0.01).parameters(), true);
    for (long key = 0; key < distinct; key++) {
      plain.addHash(CuckooHash.hashLong(key, CuckooFilter.DEFAULT_SEED));
    }
    assertArrayEquals(plain.build().toByteArray(), built.toByteArray());
    for (long key = 0; key < distinct; key++) {
      assertTrue(built.mightContain(key), "key " + key);
    }
  }
}
