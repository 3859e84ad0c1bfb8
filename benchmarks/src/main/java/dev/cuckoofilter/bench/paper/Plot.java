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
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.Marker;
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

  /** A line with markers and error bars of {@code ±error} (a mean and its standard deviation). */
  Plot lineWithErrors(String name, double[] x, double[] y, double[] error) {
    chart.getStyler().setErrorBarsColorSeriesColor(true);
    chart.addSeries(name, x, y, error);
    return this;
  }

  /** Markers only (measured points, a crossover). */
  Plot points(String name, double[] x, double[] y) {
    return points(name, x, y, SeriesMarkers.DIAMOND, Color.RED);
  }

  /** Markers only, in a shape and colour of their own (another source beside the lines: the paper's numbers). */
  Plot points(String name, double[] x, double[] y, Marker marker, Color color) {
    XYSeries s = chart.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
    s.setMarker(marker);
    s.setMarkerColor(color);
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

  Plot yRange(double min, double max) {
    chart.getStyler().setYAxisMin(min).setYAxisMax(max);
    return this;
  }

  Plot xRange(double min, double max) {
    chart.getStyler().setXAxisMin(min).setXAxisMax(max);
    return this;
  }

  Plot legend(Styler.LegendPosition position) {
    chart.getStyler().setLegendPosition(position);
    return this;
  }

  /** The legend in one row under the plot, where it cannot hide points wherever they fall. */
  Plot legendBelow() {
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS).setLegendLayout(Styler.LegendLayout.Horizontal);
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
    saveCharts(png, charts);
  }

  /** Writes charts of any kind ({@link Plot}'s lines, {@link Bars}) side by side into one PNG. */
  static void saveCharts(Path png, List<? extends Chart<?, ?>> charts) {
    try {
      BitmapEncoder.saveBitmap(charts, 1, charts.size(), png.toString(), BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
