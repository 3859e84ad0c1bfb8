package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.examples.common.InputException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Keys given as text on the command line, converted to the Spark values of the filter's key types and
 * hashed like them. Formats: integers in decimal; booleans {@code true}/{@code false}; floating and
 * decimal numbers as Java parses them (a decimal must fit its column's precision and scale); dates
 * {@code yyyy-MM-dd}; timestamps ISO-8601 with an offset ({@code 2024-05-01T10:00:00Z}) or without (then in
 * the given time zone); timestamp_ntz ISO-8601 without an offset; strings as they are; binary as hex.
 * A composite key is its components joined by a separator.
 */
final class KeyText {
  private final List<KeySchema.Column> components;
  private final List<Integer> charLengths;
  private final String separator;
  private final ZoneId zone;

  /**
   * @param components the filter's key components ({@link KeySchema#columns})
   * @param separator  between the components of a composite key
   * @param zone       for timestamps given without an offset
   */
  KeyText(List<KeySchema.Column> components, String separator, ZoneId zone) {
    this(components, Collections.nCopies(components.size(), -1), separator, zone);
  }

  /**
   * @param charLengths for each component, its {@code char(n)} length ({@link KeySchema#charLengths}), else -1: a
   *                    char value is hashed as Spark reads it, padded to n, and {@code k = 'ab'} matches it
   */
  KeyText(List<KeySchema.Column> components, List<Integer> charLengths, String separator, ZoneId zone) {
    this.components = List.copyOf(components);
    this.charLengths = List.copyOf(charLengths);
    this.separator = separator;
    this.zone = zone;
  }

  /**
   * The hash of the key {@code text} with the filter's {@code seed}.
   *
   * @throws InputException naming the key, the component and its type if the text is not such a value
   */
  long hash(String text, long seed) {
    String[] parts = components.size() == 1 ? new String[] {text} : text.split(Pattern.quote(separator), -1);
    if (parts.length != components.size()) {
      throw new InputException("key '" + text + "': the filter's key has " + components.size() + " components ("
          + KeySchema.describe(components) + "), separated by '" + separator + "', but " + parts.length
          + " were given");
    }
    long h = seed;
    for (int i = 0; i < parts.length; i++) {
      KeySchema.Column c = components.get(i);
      try {
        h = fold(c, asChar(parts[i], charLengths.get(i)), h);
      } catch (RuntimeException e) {
        throw new InputException("key '" + text + "': '" + parts[i] + "' is not a value of " + c + " ("
            + e.getMessage() + ")", e);
      }
    }
    return h;
  }

  /**
   * The text as a char(n) column holds it, as Spark compares them (the shorter padded with spaces): trailing spaces
   * dropped, then padded to n. Text longer than n stays as is: no value of the column equals it.
   */
  private static String asChar(String text, int length) {
    if (length < 0) {
      return text;
    }
    String trimmed = text.replaceAll(" +$", "");
    int chars = trimmed.codePointCount(0, trimmed.length());
    return chars > length ? text : trimmed + " ".repeat(length - chars);
  }

  private long fold(KeySchema.Column column, String text, long h) {
    String value = text.trim();
    switch (column.type()) {
      case "byte":
        return SparkValueHash.integer(Byte.parseByte(value), h);
      case "short":
        return SparkValueHash.integer(Short.parseShort(value), h);
      case "integer":
        return SparkValueHash.integer(Integer.parseInt(value), h);
      case "long":
        return SparkValueHash.integer(Long.parseLong(value), h);
      case "boolean":
        return SparkValueHash.integer(parseBoolean(value) ? 1 : 0, h);
      case "float":
        return SparkValueHash.floating(Float.parseFloat(value), h); // the float's value, widened
      case "double":
        return SparkValueHash.floating(Double.parseDouble(value), h);
      case "date":
        return SparkValueHash.integer(LocalDate.parse(value).toEpochDay(), h);
      case "timestamp":
        return SparkValueHash.integer(micros(instant(value)), h);
      case "timestamp_ntz":
        return SparkValueHash.integer(micros(localDateTime(value).toInstant(ZoneOffset.UTC)), h);
      case "string":
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8); // as given, spaces included
        return SparkValueHash.bytes(utf8, 0, utf8.length, h);
      case "binary":
        byte[] bytes = HexFormat.of().parseHex(value);
        return SparkValueHash.bytes(bytes, 0, bytes.length, h);
      default:
        return SparkValueHash.decimal(unscaled(column, new BigDecimal(value)), h);
    }
  }

  private static boolean parseBoolean(String text) {
    switch (text.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new IllegalArgumentException("expected true or false");
    }
  }

  private static BigInteger unscaled(KeySchema.Column decimal, BigDecimal value) {
    int scale = decimal.decimalScale();
    BigDecimal scaled;
    try {
      scaled = value.setScale(scale);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("more than " + scale + " decimal places");
    }
    if (scaled.precision() > decimal.decimalPrecision()) {
      throw new IllegalArgumentException("more than " + decimal.decimalPrecision() + " digits");
    }
    return scaled.unscaledValue();
  }

  private Instant instant(String text) {
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException withoutOffset) {
      return localDateTime(text).atZone(zone).toInstant();
    }
  }

  private static LocalDateTime localDateTime(String text) {
    return LocalDateTime.parse(text.replace(' ', 'T'));
  }

  /** Microseconds since the epoch, as Spark stores timestamps. */
  private static long micros(Instant instant) {
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L),
        instant.getLong(ChronoField.MICRO_OF_SECOND));
  }
}
