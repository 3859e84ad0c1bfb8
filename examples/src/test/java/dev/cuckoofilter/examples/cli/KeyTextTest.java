package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.spark.hash.KeyHashing;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * Keys typed on the command line hash exactly like the Spark values they stand for, as the connector
 * hashes those ({@link KeyHashing}, the reference of docs/HASHING.md section 5).
 */
class KeyTextTest {
  private static final long SEED = 0x5eedL;

  private static long hash(String type, String text) {
    return new KeyText(List.of(new KeySchema.Column("k", type)), ",", ZoneId.of("Europe/Paris")).hash(text, SEED);
  }

  @Test
  void numbersAndBooleans() {
    assertEquals(KeyHashing.hashLong(-42, SEED), hash("long", "-42"));
    assertEquals(KeyHashing.hashLong(-42, SEED), hash("byte", " -42 "));
    assertEquals(KeyHashing.hashLong(Integer.MAX_VALUE, SEED), hash("integer", "2147483647"));
    assertEquals(KeyHashing.hashBoolean(true, SEED), hash("boolean", "TRUE"));
    assertEquals(KeyHashing.hashDouble(0.1f, SEED), hash("float", "0.1")); // the float nearest 0.1, widened
    assertEquals(KeyHashing.hashDouble(0.1, SEED), hash("double", "0.1"));
    assertEquals(hash("double", "0.0"), hash("double", "-0.0"));
    assertEquals(KeyHashing.hashDouble(Double.NaN, SEED), hash("double", "NaN"));
  }

  @Test
  void decimalsByTheirUnscaledValueAtTheColumnsScale() {
    assertEquals(KeyHashing.hashDecimal(Decimal.apply(new BigDecimal("123.40")), 10, SEED),
        hash("decimal(10,2)", "123.4"));
    BigDecimal big = new BigDecimal("123456789012345678901.125"); // unscaled beyond 64 bits
    assertEquals(KeyHashing.hashDecimal(Decimal.apply(big), 25, SEED), hash("decimal(25,3)", big.toPlainString()));
    assertEquals(KeyHashing.hashDecimal(Decimal.apply(new BigDecimal("-0.5")), 25, SEED), hash("decimal(25,1)", "-.5"));
  }

  @Test
  void datesAndTimestamps() {
    assertEquals(KeyHashing.hashLong(LocalDate.of(1969, 7, 20).toEpochDay(), SEED), hash("date", "1969-07-20"));
    long micros = DateTimeUtils.instantToMicros(Instant.parse("2024-05-01T08:00:00.123456Z"));
    assertEquals(KeyHashing.hashLong(micros, SEED), hash("timestamp", "2024-05-01T10:00:00.123456+02:00"));
    assertEquals(KeyHashing.hashLong(micros, SEED), hash("timestamp", "2024-05-01 10:00:00.123456")); // Paris
    long ntz = DateTimeUtils.instantToMicros(Instant.parse("1960-01-01T00:00:00.000001Z"));
    assertEquals(KeyHashing.hashLong(ntz, SEED), hash("timestamp_ntz", "1960-01-01T00:00:00.000001"));
  }

  @Test
  void stringsAndBinary() {
    String s = "Zürich \u20ac \uD83D\uDE00";
    assertEquals(KeyHashing.hashUtf8(UTF8String.fromString(s), SEED), hash("string", s));
    assertEquals(KeyHashing.hashBinary("Zü".getBytes(StandardCharsets.UTF_8), SEED), hash("binary", "5ac3bc"));
  }

  @Test
  void compositeKeysChainTheSeed() {
    KeyText text = new KeyText(List.of(new KeySchema.Column("region", "string"), new KeySchema.Column("id", "long")),
        "|", ZoneId.of("UTC"));
    long expected = KeyHashing.hashLong(17, KeyHashing.hashUtf8(UTF8String.fromString("eu,west"), SEED));
    assertEquals(expected, text.hash("eu,west|17", SEED));
  }

  @Test
  void refusesTextThatIsNotAValueOfTheType() {
    InputException e = assertThrows(InputException.class, () -> hash("integer", "2147483648"));
    assertTrue(e.getMessage().startsWith("key '2147483648': '2147483648' is not a value of k int ("), e.getMessage());
    assertEquals("key '1.234': '1.234' is not a value of k decimal(10,2) (more than 2 decimal places)",
        assertThrows(InputException.class, () -> hash("decimal(10,2)", "1.234")).getMessage());
    assertEquals("key '123456789.5': '123456789.5' is not a value of k decimal(10,2) (more than 10 digits)",
        assertThrows(InputException.class, () -> hash("decimal(10,2)", "123456789.5")).getMessage());
    assertTrue(assertThrows(InputException.class, () -> hash("boolean", "yes")).getMessage()
        .endsWith("(expected true or false)"));
  }
}
