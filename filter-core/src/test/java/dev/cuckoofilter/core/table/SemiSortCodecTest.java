package dev.cuckoofilter.core.table;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SemiSortCodecTest {
  @Test
  void codesAreABijectionOnSortedNibbleQuadruples() {
    Set<Integer> codes = new HashSet<>();
    for (int a = 0; a < 16; a++) {
      for (int b = a; b < 16; b++) {
        for (int c = b; c < 16; c++) {
          for (int d = c; d < 16; d++) {
            int code = SemiSortCodec.encode(a, b, c, d);
            codes.add(code);
            assertEquals(a | b << 4 | c << 8 | d << 12, SemiSortCodec.decode(code));
          }
        }
      }
    }
    assertEquals(3876, codes.size());
    assertEquals(0, SemiSortCodec.encode(0, 0, 0, 0));
    assertEquals(3875, SemiSortCodec.encode(15, 15, 15, 15));
  }
}
