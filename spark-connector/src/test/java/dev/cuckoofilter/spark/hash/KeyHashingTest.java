package dev.cuckoofilter.spark.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.cuckoofilter.core.hash.CuckooHash;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** Spark values hash exactly as the core contract hashes the same logical values in plain Java. */
class KeyHashingTest {
  @Test
  void stringsHashLikeJavaStrings() {
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 5000; i++) {
      StringBuilder sb = new StringBuilder();
      for (int k = r.nextInt(70); k > 0; k--) {
        sb.appendCodePoint(r.nextInt(4) == 0 ? r.nextInt(0x20, 0x2FFFF) : r.nextInt(0x20, 0x7F));
      }
      String s = sb.toString();
      long seed = r.nextLong();
      assertEquals(CuckooHash.hashString(s, seed), KeyHashing.hashUtf8(UTF8String.fromString(s), seed));
      assertEquals(CuckooHash.hashBytes(s.getBytes(StandardCharsets.UTF_8), seed),
          KeyHashing.hashBinary(s.getBytes(StandardCharsets.UTF_8), seed));
    }
  }

  @Test
  void decimalsHashTheirUnscaledValueWhateverThePrecision() {
    Decimal small = Decimal.apply(new BigDecimal("12345.67"));
    long expected = CuckooHash.hashLong(1234567, 9);
    assertEquals(expected, KeyHashing.hashDecimal(small, 10, 9));
    assertEquals(expected, KeyHashing.hashDecimal(Decimal.apply(new BigDecimal("12345.67")), 30, 9));
    BigDecimal huge = new BigDecimal("123456789012345678901234567.89");
    assertEquals(CuckooHash.hashBytes(huge.unscaledValue().toByteArray(), 9),
        KeyHashing.hashDecimal(Decimal.apply(huge), 30, 9));
  }

  @Test
  void floatingKeysAreNormalizedAndWidened() {
    assertEquals(KeyHashing.hashDouble(0.0, 1), KeyHashing.hashDouble(-0.0, 1));
    assertEquals(KeyHashing.hashDouble(Double.NaN, 1), KeyHashing.hashDouble(Double.longBitsToDouble(0x7ff8000000000001L), 1));
    assertEquals(KeyHashing.hashDouble(1.5, 1), KeyHashing.hashDouble(1.5f, 1));
    assertNotEquals(KeyHashing.hashDouble(1.0, 1), KeyHashing.hashLong(1, 1));
    assertEquals(CuckooHash.hashLong(1, 5), KeyHashing.hashBoolean(true, 5));
  }
}
