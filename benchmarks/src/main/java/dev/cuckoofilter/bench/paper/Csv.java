package dev.cuckoofilter.bench.paper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  /**
   * The rows of a CSV file written by {@link #write}, each a map from column to cell (empty cells are
   * empty strings): what the plots drawn from a run's files read ({@code --plot-only}).
   */
  static List<Map<String, String>> read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> header = cells(lines.get(0));
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      List<String> cells = cells(line);
      if (cells.size() != header.size()) {
        throw new IllegalArgumentException(file + ": " + cells.size() + " cells for " + header.size() + " columns in "
            + line);
      }
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < header.size(); i++) {
        row.put(header.get(i), cells.get(i));
      }
      rows.add(row);
    }
    return rows;
  }

  /** The cells of one line, undoing {@link #append}'s quoting (no cell of ours spans lines). */
  private static List<String> cells(String line) {
    List<String> cells = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
        cell.append('"');
        i++;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.add(cell.toString());
        cell.setLength(0);
      } else {
        cell.append(c);
      }
    }
    cells.add(cell.toString());
    return cells;
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
