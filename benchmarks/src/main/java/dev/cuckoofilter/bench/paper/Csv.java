package dev.cuckoofilter.bench.paper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A CSV table built row by row (RFC 4180 quoting; numbers in plain notation, whatever the locale). */
final class Csv {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  Csv(String... header) {
    this.header = List.of(header);
  }

  /** Adds a row; doubles are written with up to 6 significant digits, everything else as text. */
  Csv row(Object... values) {
    if (values.length != header.size()) {
      throw new IllegalArgumentException("row has " + values.length + " values for " + header.size() + " columns");
    }
    List<String> cells = new ArrayList<>(values.length);
    for (Object v : values) {
      cells.add(format(v));
    }
    rows.add(cells);
    return this;
  }

  static String format(Object v) {
    if (v == null) {
      return "";
    }
    if (v instanceof Double || v instanceof Float) {
      return significant(((Number) v).doubleValue(), 6);
    }
    return v.toString();
  }

  /** {@code d} rounded to {@code digits} significant digits, in plain notation; empty if not finite. */
  static String significant(double d, int digits) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return "";
    }
    return new BigDecimal(d).round(new MathContext(digits)).stripTrailingZeros().toPlainString();
  }

  void write(Path file) {
    StringBuilder out = new StringBuilder();
    append(out, header);
    for (List<String> row : rows) {
      append(out, row);
    }
    try {
      Files.writeString(file, out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void append(StringBuilder out, List<String> cells) {
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      if (i > 0) {
        out.append(',');
      }
      if (c.contains(",") || c.contains("\"") || c.contains("\n")) {
        out.append('"').append(c.replace("\"", "\"\"")).append('"');
      } else {
        out.append(c);
      }
    }
    out.append('\n');
  }
}
