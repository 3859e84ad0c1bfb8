package dev.cuckoofilter.bench.paper;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** One panel of a figure: a line chart drawn with XChart, in one style for every figure. */
final class Plot {
  private static final int WIDTH = 820;
  private static final int HEIGHT = 520;

  private final XYChart chart;

  Plot(String title, String xTitle, String yTitle) {
    chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle)
        .build();
    chart.getStyler().setChartBackgroundColor(Color.WHITE).setLegendPosition(Styler.LegendPosition.InsideSE)
        .setMarkerSize(7);
  }

  /** A line with markers. */
  Plot line(String name, double[] x, double[] y) {
    chart.addSeries(name, x, y);
    return this;
  }

  /** A line without markers (a formula). */
  Plot curve(String name, double[] x, double[] y) {
    chart.addSeries(name, x, y).setMarker(SeriesMarkers.NONE);
    return this;
  }

  /** Markers only (measured points, a crossover). */
  Plot points(String name, double[] x, double[] y) {
    XYSeries s = chart.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
    s.setMarker(SeriesMarkers.DIAMOND);
    s.setMarkerColor(Color.RED);
    return this;
  }

  Plot logX() {
    chart.getStyler().setXAxisLogarithmic(true);
    return this;
  }

  /** Throughput axes start at 0, as the paper's. */
  Plot yFromZero() {
    chart.getStyler().setYAxisMin(0.0);
    return this;
  }

  Plot legend(Styler.LegendPosition position) {
    chart.getStyler().setLegendPosition(position);
    return this;
  }

  Plot xPattern(String decimalPattern) {
    chart.getStyler().setXAxisDecimalPattern(decimalPattern);
    return this;
  }

  /** Writes the panels side by side into one PNG. */
  static void save(Path png, Plot... panels) {
    List<XYChart> charts = new ArrayList<>();
    for (Plot p : panels) {
      charts.add(p.chart);
    }
    try {
      BitmapEncoder.saveBitmap(charts, 1, charts.size(), png.toString(), BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
