//! A layered drawing of the trace's graph, computed here so that no
//! Graphviz is needed: layers by longest path from the inputs, left to
//! right; long edges routed through virtual points, one per layer they
//! cross; the order within each layer by barycentre sweeps that keep the
//! order with the fewest crossings; rows placed near their neighbours.
//!
//! Every edge's label (its local derivative) is then put against the edge
//! itself, at a spot where it meets no node box and no other label: spots
//! are sampled along the edge's polyline (the segment that enters the
//! result first), just above it or just below, those that meet a box or
//! leave the drawing dropped, the rest ranked by how many other edges
//! cross them or pass close and by how far they are from the middle of
//! their segment. The labels are placed most constrained first, each at
//! its best spot free of placed labels, moving one placed label to
//! another free spot of its own where that frees one. A label that finds
//! no spot widens the gap between the layers it was to go in (spreads the
//! rows once that gap is wide), and the drawing is laid out again.

use std::collections::HashMap;

use super::display::{format_number, DEFAULT_DECIMALS};
use super::dot::node_lines;
use super::{NodeId, Trace};

/// Width of one character of the drawing's monospace font, 13 px.
const CHAR_WIDTH: f64 = 7.8;
pub(crate) const LINE_HEIGHT: f64 = 17.0;
pub(crate) const PAD_X: f64 = 10.0;
pub(crate) const PAD_Y: f64 = 7.0;
/// The font size of the nodes' text (the SVG's default).
pub(crate) const NODE_FONT_SIZE: f64 = 13.0;
/// The font size of the edges' labels.
pub(crate) const LABEL_FONT_SIZE: f64 = 12.0;
/// Width of one character of a label, 12 px monospace, with some room for
/// fonts a little wider than 0.6 em.
const LABEL_CHAR_WIDTH: f64 = 7.3;
/// Room either side of a label's text, for the white halo it is drawn with.
const LABEL_PAD_X: f64 = 3.0;
/// A label's height.
pub(crate) const LABEL_HEIGHT: f64 = 16.0;
/// A label's baseline, below the top of its rectangle.
pub(crate) const LABEL_BASELINE: f64 = 12.0;
/// The least distance between a label and another label or a box.
const CLEARANCE: f64 = 2.0;
/// Another edge this near a label costs it something: it makes the label
/// look like that edge's.
const NEAR: f64 = 5.0;
/// The least distance between a label and the result's box, for the arrow.
const ARROW_CLEARANCE: f64 = 12.0;
const LAYER_GAP: f64 = 100.0;
const ROW_GAP: f64 = 26.0;
const DUMMY_GAP: f64 = 14.0;
const MARGIN: f64 = 16.0;
/// The distance between two edges that join the same two nodes, or leave
/// or enter one box side by side (less where many share a box): a label
/// fits between them.
const PORT_GAP: f64 = LABEL_HEIGHT + 2.0 * CLEARANCE;
/// How much a layer gap grows when a label finds no spot in it.
const WIDEN: f64 = 16.0;
/// How much a layer gap may grow before the rows spread instead.
const MAX_WIDEN: f64 = 256.0;
/// How much a layer gap may grow so that labels can keep clear of other
/// edges.
const MAX_UNCROSS: f64 = 64.0;
/// How much the rows spread when a label finds no spot.
const SPREAD: f64 = 12.0;
/// At most this many layouts are tried.
const ROUNDS: usize = 48;
/// At most this many spots are tried on one segment of an edge.
const SPOTS: usize = 24;

/// Where [`Trace::layout`] puts every node, edge and edge label, in pixels,
/// the origin at the top left.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The drawing's width.
    pub width: f64,
    /// The drawing's height.
    pub height: f64,
    /// One box per node of the trace, in [`NodeId`] order.
    pub nodes: Vec<LayoutNode>,
    /// One edge per dependency (operand → result), in the order of the
    /// results' inputs.
    pub edges: Vec<LayoutEdge>,
}

/// A node's box.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutNode {
    /// The node.
    pub id: NodeId,
    /// Its layer: 0 for a node with no inputs, else one more than its
    /// deepest input's.
    pub layer: usize,
    /// The box's left edge.
    pub x: f64,
    /// The box's top edge.
    pub y: f64,
    /// The box's width.
    pub width: f64,
    /// The box's height.
    pub height: f64,
    /// The text lines: the entry, `value ..`, `adjoint ..`.
    pub lines: [String; 3],
}

/// An edge, from the operand's box to the result's, and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutEdge {
    /// The operand.
    pub from: NodeId,
    /// The result, which reads `from`.
    pub to: NodeId,
    /// Which input of `to` this is.
    pub input: usize,
    /// The polyline: from the operand's right side, through one point per
    /// layer crossed, to the result's left side.
    pub points: Vec<(f64, f64)>,
    /// The label's text: `∂ ` and the local derivative ∂to/∂from.
    pub label_text: String,
    /// The label's rectangle `(x, y, width, height)`: just above or just
    /// below a segment of `points`, `CLEARANCE` (2 px) from it where it is
    /// nearest (along the label's bottom or top side, or at a corner where
    /// the edge slopes), so that the edge does not run through the text.
    /// It meets no other label and no node box, and lies in the drawing.
    pub label: (f64, f64, f64, f64),
}

/// A vertex of the layered graph: a node, or a point of a long edge.
struct Vertex {
    layer: usize,
    width: f64,
    height: f64,
    preds: Vec<usize>,
    succs: Vec<usize>,
}

/// An edge as a chain of vertices, one per layer, and its label.
struct Chain {
    from: NodeId,
    to: NodeId,
    input: usize,
    vertices: Vec<usize>,
    /// Its offset from the centres of the vertices, apart from the other
    /// edges between the same two nodes.
    offset: f64,
    text: String,
    width: f64,
}

fn crossings(order: &[Vec<usize>], pos: &[usize], vertices: &[Vertex]) -> usize {
    let mut total = 0;
    for layer in order.iter().skip(1) {
        let edges: Vec<(usize, usize)> = layer
            .iter()
            .flat_map(|&v| vertices[v].preds.iter().map(move |&p| (pos[p], pos[v])))
            .collect();
        for (i, a) in edges.iter().enumerate() {
            for b in &edges[i + 1..] {
                if (a.0 < b.0 && a.1 > b.1) || (a.0 > b.0 && a.1 < b.1) {
                    total += 1;
                }
            }
        }
    }
    total
}

fn positions(order: &[Vec<usize>], count: usize) -> Vec<usize> {
    let mut pos = vec![0; count];
    for layer in order {
        for (i, &v) in layer.iter().enumerate() {
            pos[v] = i;
        }
    }
    pos
}

/// Reorders `layer` by the mean position of each vertex's neighbours
/// (`preds` or `succs`); a vertex without any keeps its place.
fn sweep(layer: &mut [usize], pos: &[usize], vertices: &[Vertex], up: bool) {
    let mut keyed: Vec<(f64, usize)> = layer
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let near = if up {
                &vertices[v].preds
            } else {
                &vertices[v].succs
            };
            if near.is_empty() {
                (i as f64, v)
            } else {
                (
                    near.iter().map(|&u| pos[u] as f64).sum::<f64>() / near.len() as f64,
                    v,
                )
            }
        })
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (slot, (_, v)) in layer.iter_mut().zip(keyed) {
        *slot = v;
    }
}

/// The layered graph, its order fixed; [`Graph::draw`] gives it
/// coordinates for given gaps.
struct Graph {
    vertices: Vec<Vertex>,
    order: Vec<Vec<usize>>,
    chains: Vec<Chain>,
}

impl Graph {
    fn new(trace: &Trace, lines: &[[String; 3]]) -> Graph {
        let n = trace.nodes.len();
        let mut vertices: Vec<Vertex> = Vec::with_capacity(n);
        let mut layers = vec![0usize; n];
        for node in &trace.nodes {
            layers[node.id.0] = node
                .inputs
                .iter()
                .map(|p| layers[p.0] + 1)
                .max()
                .unwrap_or(0);
        }
        for (node, lines) in trace.nodes.iter().zip(lines) {
            let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1);
            vertices.push(Vertex {
                layer: layers[node.id.0],
                width: chars as f64 * CHAR_WIDTH + 2.0 * PAD_X,
                height: 3.0 * LINE_HEIGHT + 2.0 * PAD_Y,
                preds: Vec::new(),
                succs: Vec::new(),
            });
        }
        // An operand read twice by one node (x * x) gets two edges, drawn
        // side by side.
        let mut twins: HashMap<(usize, usize), usize> = HashMap::new();
        for node in &trace.nodes {
            for p in &node.inputs {
                *twins.entry((p.0, node.id.0)).or_default() += 1;
            }
        }
        let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
        let mut chains = Vec::new();
        for node in &trace.nodes {
            for (k, p) in node.inputs.iter().enumerate() {
                let mut chain = vec![p.0];
                for layer in layers[p.0] + 1..layers[node.id.0] {
                    vertices.push(Vertex {
                        layer,
                        width: 0.0,
                        height: 0.0,
                        preds: Vec::new(),
                        succs: Vec::new(),
                    });
                    chain.push(vertices.len() - 1);
                }
                chain.push(node.id.0);
                for pair in chain.windows(2) {
                    vertices[pair[1]].preds.push(pair[0]);
                    vertices[pair[0]].succs.push(pair[1]);
                }
                let same = twins[&(p.0, node.id.0)];
                let rank = seen.entry((p.0, node.id.0)).or_default();
                // Many twins share the box's height.
                let gap = if same > 1 {
                    PORT_GAP.min((vertices[p.0].height - 2.0 * PAD_Y) / (same - 1) as f64)
                } else {
                    0.0
                };
                let offset = (*rank as f64 - (same - 1) as f64 / 2.0) * gap;
                *rank += 1;
                let partial = node.partials.get(k).copied().unwrap_or(f64::NAN);
                let text = format!("∂ {}", format_number(partial, DEFAULT_DECIMALS));
                let width = text.chars().count() as f64 * LABEL_CHAR_WIDTH + 2.0 * LABEL_PAD_X;
                chains.push(Chain {
                    from: *p,
                    to: node.id,
                    input: k,
                    vertices: chain,
                    offset,
                    text,
                    width,
                });
            }
        }
        let depth = layers.iter().max().map_or(0, |m| m + 1);
        let mut order: Vec<Vec<usize>> = vec![Vec::new(); depth];
        for (v, vertex) in vertices.iter().enumerate() {
            order[vertex.layer].push(v);
        }
        // Barycentre sweeps, keeping the best order seen.
        let mut pos = positions(&order, vertices.len());
        let mut best = (crossings(&order, &pos, &vertices), order.clone());
        for round in 0..8 {
            let up = round % 2 == 0;
            let indices: Vec<usize> = if up {
                (1..depth).collect()
            } else {
                (0..depth.saturating_sub(1)).rev().collect()
            };
            for l in indices {
                sweep(&mut order[l], &pos, &vertices, up);
                pos = positions(&order, vertices.len());
            }
            let c = crossings(&order, &pos, &vertices);
            if c < best.0 {
                best = (c, order.clone());
            }
        }
        Graph {
            vertices,
            order: best.1,
            chains,
        }
    }

    /// The left side of each layer's column, each layer as wide as its
    /// widest box and `gaps[l]` after layer `l`, and the drawing's width.
    fn columns(&self, gaps: &[f64]) -> (Vec<f64>, f64) {
        let mut column_x = Vec::with_capacity(self.order.len());
        let mut x = MARGIN;
        for (l, layer) in self.order.iter().enumerate() {
            column_x.push(x);
            let w = layer
                .iter()
                .map(|&v| self.vertices[v].width)
                .fold(0.0, f64::max);
            x += w + gaps.get(l).copied().unwrap_or(0.0);
        }
        (column_x, x + MARGIN)
    }

    /// The centre of each vertex, rows `row_gap` apart (`dummy_gap` after
    /// a point of a long edge), and the drawing's height: centres placed
    /// in order, then pulled towards their neighbours' centres a few
    /// times, never overlapping.
    fn rows(&self, row_gap: f64, dummy_gap: f64) -> (Vec<f64>, f64) {
        let vertices = &self.vertices;
        let order = &self.order;
        let depth = order.len();
        let gap = |v: usize| {
            if vertices[v].width == 0.0 {
                dummy_gap
            } else {
                row_gap
            }
        };
        let mut cy = vec![0.0; vertices.len()];
        for layer in order {
            let mut y = 0.0;
            for &v in layer {
                cy[v] = y + vertices[v].height / 2.0;
                y += vertices[v].height + gap(v);
            }
        }
        for round in 0..6 {
            let up = round % 2 == 0;
            let indices: Vec<usize> = if up {
                (0..depth).collect()
            } else {
                (0..depth).rev().collect()
            };
            for l in indices {
                let layer = &order[l];
                let wanted: Vec<f64> = layer
                    .iter()
                    .map(|&v| {
                        let near = if up {
                            &vertices[v].preds
                        } else {
                            &vertices[v].succs
                        };
                        if near.is_empty() {
                            cy[v]
                        } else {
                            near.iter().map(|&u| cy[u]).sum::<f64>() / near.len() as f64
                        }
                    })
                    .collect();
                place(layer, &wanted, vertices, &gap, &mut cy);
            }
        }
        let top = vertices
            .iter()
            .enumerate()
            .map(|(v, vx)| cy[v] - vx.height / 2.0)
            .fold(f64::INFINITY, f64::min);
        let shift = MARGIN - if top.is_finite() { top } else { 0.0 };
        for y in cy.iter_mut() {
            *y += shift;
        }
        let height = vertices
            .iter()
            .enumerate()
            .map(|(v, vx)| cy[v] + vx.height / 2.0)
            .fold(0.0, f64::max)
            + MARGIN;
        (cy, height.max(2.0 * MARGIN))
    }

    /// Each chain's polyline: from the operand's right side, through the
    /// points of the layers between, to the result's left side. The edges
    /// that leave one box (or enter one) are spread along its side in the
    /// order of where they go (come from), so that they do not cross there
    /// and their labels have room; two edges between the same two nodes
    /// stay in their inputs' order.
    fn polylines(&self, column_x: &[f64], cy: &[f64]) -> Vec<Vec<(f64, f64)>> {
        let mut leaving: Vec<Vec<usize>> = vec![Vec::new(); self.vertices.len()];
        let mut entering: Vec<Vec<usize>> = vec![Vec::new(); self.vertices.len()];
        for (c, chain) in self.chains.iter().enumerate() {
            leaving[chain.vertices[0]].push(c);
            entering[chain.vertices[chain.vertices.len() - 1]].push(c);
        }
        let mut start = vec![0.0; self.chains.len()];
        let mut end = vec![0.0; self.chains.len()];
        for (v, (out, into)) in leaving.iter_mut().zip(&mut entering).enumerate() {
            let side = self.vertices[v].height - 2.0 * PAD_Y;
            // The vertex next to the box along chain `c`, from the end.
            let next = |c: usize, back: bool| {
                let chain = &self.chains[c].vertices;
                cy[if back {
                    chain[chain.len() - 2]
                } else {
                    chain[1]
                }]
            };
            for (list, back, ports) in [(out, false, &mut start), (into, true, &mut end)] {
                list.sort_by(|&a, &b| next(a, back).total_cmp(&next(b, back)).then(a.cmp(&b)));
                let gap = if list.len() > 1 {
                    PORT_GAP.min(side / (list.len() - 1) as f64)
                } else {
                    0.0
                };
                for (i, &c) in list.iter().enumerate() {
                    ports[c] = cy[v] + (i as f64 - (list.len() - 1) as f64 / 2.0) * gap;
                }
            }
        }
        self.chains
            .iter()
            .enumerate()
            .map(|(c, chain)| {
                let last = chain.vertices.len() - 1;
                chain
                    .vertices
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        let vx = &self.vertices[v];
                        if i == 0 {
                            (column_x[vx.layer] + vx.width, start[c])
                        } else if i == last {
                            (column_x[vx.layer], end[c])
                        } else {
                            (column_x[vx.layer] + vx.width / 2.0, cy[v] + chain.offset)
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

impl Trace {
    /// Lays the graph out in layers, left to right, and puts each edge's
    /// label on it (see the module documentation). Deterministic: the
    /// same trace gives the same layout. Meant for graphs a person reads:
    /// its time grows with the number of layers that long edges cross (a
    /// value read in every iteration of a 400-iteration loop: about 0.2 s
    /// in a release build).
    pub fn layout(&self) -> Layout {
        let lines: Vec<[String; 3]> = self
            .nodes
            .iter()
            .map(|n| node_lines(n, DEFAULT_DECIMALS))
            .collect();
        let graph = Graph::new(self, &lines);
        let n = self.nodes.len();
        let mut gaps = vec![LAYER_GAP; graph.order.len().saturating_sub(1)];
        let (mut row_gap, mut dummy_gap) = (ROW_GAP, DUMMY_GAP);
        // Each label nearer the end of its edge that fewer edges share:
        // by the result where one value fans out, by the operand where
        // many meet.
        let mut leaving = vec![0usize; n];
        let mut entering = vec![0usize; n];
        for c in &graph.chains {
            leaving[c.from.0] += 1;
            entering[c.to.0] += 1;
        }
        let sizes: Vec<(f64, f64, f64)> = graph
            .chains
            .iter()
            .map(|c| {
                let (out, into) = (leaving[c.from.0] as f64, entering[c.to.0] as f64);
                (
                    c.width,
                    LABEL_HEIGHT,
                    0.5 + 0.3 * (out - into) / (out + into),
                )
            })
            .collect();
        let mut rows = graph.rows(row_gap, dummy_gap);
        for round in 0.. {
            let (column_x, width) = graph.columns(&gaps);
            let (cy, height) = &rows;
            let boxes: Vec<Rect> = (0..n)
                .map(|v| {
                    let vx = &graph.vertices[v];
                    Rect {
                        x: column_x[vx.layer],
                        y: cy[v] - vx.height / 2.0,
                        w: vx.width,
                        h: vx.height,
                    }
                })
                .collect();
            let polylines = graph.polylines(&column_x, cy);
            let placed = place_labels(&boxes, &polylines, &sizes, width, *height);
            // Widen the gaps where labels found no spot, or spread the rows
            // once a gap is wide; widen a little where labels found none
            // that no other edge crosses.
            let mut widened = vec![false; gaps.len()];
            let mut spread = false;
            let last = gaps.len().saturating_sub(1);
            let boundary = |x: f64| {
                column_x
                    .iter()
                    .rposition(|&c| c <= x)
                    .unwrap_or(0)
                    .min(last)
            };
            for (&x, hard) in placed
                .blocked
                .iter()
                .map(|x| (x, true))
                .chain(placed.crossed.iter().map(|x| (x, false)))
            {
                let b = boundary(x);
                let Some(g) = gaps.get_mut(b) else {
                    spread |= hard;
                    continue;
                };
                let most = LAYER_GAP + if hard { MAX_WIDEN } else { MAX_UNCROSS };
                if *g + WIDEN <= most {
                    if !widened[b] {
                        *g += WIDEN;
                        widened[b] = true;
                    }
                } else {
                    spread |= hard;
                }
            }
            if round + 1 < ROUNDS && (spread || widened.contains(&true)) {
                if spread {
                    row_gap += SPREAD;
                    dummy_gap += SPREAD / 2.0;
                    rows = graph.rows(row_gap, dummy_gap);
                }
                continue;
            }
            let nodes = self
                .nodes
                .iter()
                .zip(&lines)
                .zip(&boxes)
                .map(|((node, lines), b)| LayoutNode {
                    id: node.id,
                    layer: graph.vertices[node.id.0].layer,
                    x: b.x,
                    y: b.y,
                    width: b.w,
                    height: b.h,
                    lines: lines.clone(),
                })
                .collect();
            let edges = graph
                .chains
                .iter()
                .zip(polylines)
                .zip(placed.rects)
                .map(|((chain, points), rect)| LayoutEdge {
                    from: chain.from,
                    to: chain.to,
                    input: chain.input,
                    points,
                    label_text: chain.text.clone(),
                    label: (rect.x, rect.y, rect.w, rect.h),
                })
                .collect();
            return Layout {
                width,
                height: *height,
                nodes,
                edges,
            };
        }
        unreachable!("the last round returns")
    }
}

/// Puts the centres of `layer`'s vertices as near `wanted` as their order
/// and the gaps allow: placed in order at or below the wanted centre, then
/// the whole layer shifted by the mean error.
fn place(
    layer: &[usize],
    wanted: &[f64],
    vertices: &[Vertex],
    gap: &dyn Fn(usize) -> f64,
    cy: &mut [f64],
) {
    let mut bottom = f64::NEG_INFINITY;
    let mut placed = Vec::with_capacity(layer.len());
    for (&v, &w) in layer.iter().zip(wanted) {
        let half = vertices[v].height / 2.0;
        let c = w.max(bottom + half);
        bottom = c + half + gap(v);
        placed.push(c);
    }
    let error =
        placed.iter().zip(wanted).map(|(p, w)| p - w).sum::<f64>() / layer.len().max(1) as f64;
    for (&v, p) in layer.iter().zip(placed) {
        cy[v] = p - error;
    }
}

// ---- Label placement.

/// An axis-aligned rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    /// The rectangle grown by `d` on every side.
    fn grow(self, d: f64) -> Rect {
        Rect {
            x: self.x - d,
            y: self.y - d,
            w: self.w + 2.0 * d,
            h: self.h + 2.0 * d,
        }
    }

    /// Whether the two share inner points (touching is not overlapping).
    fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }

    /// Whether the segment from `a` to `b` meets the rectangle
    /// (Liang–Barsky clipping).
    fn meets(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
        for (p, q) in [
            (-dx, a.0 - self.x),
            (dx, self.x + self.w - a.0),
            (-dy, a.1 - self.y),
            (dy, self.y + self.h - a.1),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// Items indexed by the 64-px cells their bounding rectangles meet.
#[derive(Default)]
struct Grid {
    cells: HashMap<(i64, i64), Vec<usize>>,
}

const CELL: f64 = 64.0;

fn cell_span(lo: f64, hi: f64) -> std::ops::RangeInclusive<i64> {
    (lo / CELL).floor() as i64..=(hi / CELL).floor() as i64
}

impl Grid {
    fn insert(&mut self, r: Rect, item: usize) {
        for i in cell_span(r.x, r.x + r.w) {
            for j in cell_span(r.y, r.y + r.h) {
                self.cells.entry((i, j)).or_default().push(item);
            }
        }
    }

    fn remove(&mut self, r: Rect, item: usize) {
        for i in cell_span(r.x, r.x + r.w) {
            for j in cell_span(r.y, r.y + r.h) {
                if let Some(items) = self.cells.get_mut(&(i, j)) {
                    items.retain(|&k| k != item);
                }
            }
        }
    }

    /// The items whose cells meet `r`'s, each once, in increasing order.
    fn near(&self, r: Rect) -> Vec<usize> {
        let mut out = Vec::new();
        for i in cell_span(r.x, r.x + r.w) {
            for j in cell_span(r.y, r.y + r.h) {
                if let Some(items) = self.cells.get(&(i, j)) {
                    out.extend_from_slice(items);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A spot for a label: its rectangle, and how much worse it is than the
/// best imaginable one.
struct Spot {
    rect: Rect,
    cost: f64,
    crossed: bool,
}

/// Where the labels go: one rectangle per edge, and the x of the best spot
/// of each label that found none free (placed there anyway).
struct Placement {
    rects: Vec<Rect>,
    blocked: Vec<f64>,
    /// The x of each label placed where another edge crosses it.
    crossed: Vec<f64>,
}

/// A segment of an edge's polyline.
#[derive(Clone, Copy)]
struct Segment {
    /// The edge's index.
    edge: usize,
    from: (f64, f64),
    to: (f64, f64),
}

/// What labels are placed among: the boxes, the edges' segments, each
/// indexed by a grid, and the drawing's size.
struct Scene<'a> {
    boxes: &'a [Rect],
    box_grid: Grid,
    segments: Vec<Segment>,
    segment_grid: Grid,
    width: f64,
    height: f64,
}

/// The bounding rectangle of the segment from `a` to `b`.
fn segment_box(a: (f64, f64), b: (f64, f64)) -> Rect {
    Rect {
        x: a.0.min(b.0),
        y: a.1.min(b.1),
        w: (a.0 - b.0).abs(),
        h: (a.1 - b.1).abs(),
    }
}

/// The least and greatest y of the polyline `points` (x increasing) from
/// `x0` to `x1`.
fn extent(points: &[(f64, f64)], x0: f64, x1: f64) -> (f64, f64) {
    let at = |x: f64| {
        let x = x.clamp(points[0].0, points[points.len() - 1].0);
        points
            .windows(2)
            .find(|s| s[1].0 >= x)
            .map_or(points[points.len() - 1].1, |s| {
                if s[1].0 > s[0].0 {
                    s[0].1 + (s[1].1 - s[0].1) * (x - s[0].0) / (s[1].0 - s[0].0)
                } else {
                    s[1].1
                }
            })
    };
    let (a, b) = (at(x0), at(x1));
    points
        .iter()
        .filter(|p| p.0 > x0 && p.0 < x1)
        .fold((a.min(b), a.max(b)), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        })
}

/// The spots along one edge's polyline for a `w`×`h` label, cheapest
/// first: just above or just below a segment, so that the edge touches the
/// label's bottom or top side (a corner of it where the edge slopes) and
/// does not run through its text; inside the drawing, meeting no box. Each
/// costs 100 for every other edge's segment that crosses it, 25 for every
/// one that passes within `NEAR`, 40 for each segment it is further from
/// the result than the last, up to 20 for its distance from the best place
/// along its segment (`at` of the way), and 2 for being below.
fn spots(
    scene: &Scene,
    edge: usize,
    points: &[(f64, f64)],
    (w, h, at): (f64, f64, f64),
) -> Vec<Spot> {
    let count = points.len() - 1;
    // The segment entering the result first, then the one leaving the
    // operand, then the others from the result back; of a long edge, only
    // the two at either end.
    let mut preferred: Vec<usize> = vec![count - 1];
    if count > 1 {
        preferred.push(0);
    }
    let middle: Vec<usize> = (1..count - 1).rev().collect();
    if count <= 4 {
        preferred.extend(middle);
    } else {
        preferred.extend([middle[0], middle[middle.len() - 1]]);
    }
    let mut out = Vec::new();
    for (rank, &s) in preferred.iter().enumerate() {
        let (a, b) = (points[s], points[s + 1]);
        let mut lo = a.0;
        let mut hi = b.0;
        if s == 0 {
            lo = lo.max(a.0 + CLEARANCE + w / 2.0);
        }
        if s == count - 1 {
            hi = hi.min(b.0 - ARROW_CLEARANCE - w / 2.0);
        }
        if lo > hi || b.0 <= a.0 {
            continue;
        }
        let mid = lo + (hi - lo) * at;
        let steps = (((hi - lo) / 4.0).ceil() as usize).clamp(1, SPOTS);
        for k in 0..=steps {
            let cx = lo + (hi - lo) * k as f64 / steps as f64;
            // The label just above the edge where it runs under the
            // label, or just below.
            let (top, bottom) = extent(points, cx - w / 2.0, cx + w / 2.0);
            for (side, y) in [(0.0, top - CLEARANCE - h), (1.0, bottom + CLEARANCE)] {
                let rect = Rect {
                    x: cx - w / 2.0,
                    y,
                    w,
                    h,
                };
                if rect.x < 0.0
                    || rect.y < 0.0
                    || rect.x + w > scene.width
                    || rect.y + h > scene.height
                {
                    continue;
                }
                let grown = rect.grow(CLEARANCE);
                if scene
                    .box_grid
                    .near(grown)
                    .into_iter()
                    .any(|i| scene.boxes[i].overlaps(&grown))
                {
                    continue;
                }
                // Its own edge never runs through it; the others as
                // seldom as can be, nor close by.
                let near = rect.grow(NEAR);
                let (mut crossed, mut close) = (0, 0);
                let mut own = false;
                for i in scene.segment_grid.near(near) {
                    let Segment {
                        edge: e,
                        from: p,
                        to: q,
                    } = scene.segments[i];
                    if rect.meets(p, q) {
                        own |= e == edge;
                        crossed += 1;
                    } else if e != edge && near.meets(p, q) {
                        close += 1;
                    }
                }
                if own {
                    continue;
                }
                let off = if hi > lo {
                    (cx - mid).abs() / (hi - lo)
                } else {
                    0.0
                };
                out.push(Spot {
                    rect,
                    crossed: crossed > 0,
                    cost: 100.0 * crossed as f64
                        + 25.0 * close as f64
                        + 40.0 * rank as f64
                        + 20.0 * off
                        + 2.0 * side,
                });
            }
        }
    }
    out.sort_by(|a, b| a.cost.total_cmp(&b.cost));
    out
}

/// Places one label on each polyline `lines[e]`, `sizes[e]` its width,
/// height, and where along a segment it is best (0 at the start, 1 at the
/// end), meeting no
/// box, no other label, and staying inside the drawing (see the module
/// documentation).
fn place_labels(
    boxes: &[Rect],
    lines: &[Vec<(f64, f64)>],
    sizes: &[(f64, f64, f64)],
    width: f64,
    height: f64,
) -> Placement {
    let mut scene = Scene {
        boxes,
        box_grid: Grid::default(),
        segments: Vec::new(),
        segment_grid: Grid::default(),
        width,
        height,
    };
    for (i, b) in boxes.iter().enumerate() {
        scene.box_grid.insert(*b, i);
    }
    for (e, points) in lines.iter().enumerate() {
        for pair in points.windows(2) {
            let at = scene.segments.len();
            scene.segment_grid.insert(segment_box(pair[0], pair[1]), at);
            scene.segments.push(Segment {
                edge: e,
                from: pair[0],
                to: pair[1],
            });
        }
    }
    let spots: Vec<Vec<Spot>> = lines
        .iter()
        .zip(sizes)
        .enumerate()
        .map(|(e, (points, &size))| spots(&scene, e, points, size))
        .collect();
    // The most constrained first.
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&e| (spots[e].len(), e));
    let mut chosen: Vec<Option<usize>> = vec![None; lines.len()];
    let mut grid = Grid::default();
    let conflicts = |grid: &Grid, chosen: &[Option<usize>], r: Rect| -> Vec<usize> {
        let grown = r.grow(CLEARANCE);
        grid.near(grown)
            .into_iter()
            .filter(|&o| chosen[o].is_some_and(|k| spots[o][k].rect.overlaps(&grown)))
            .collect()
    };
    // Where a label that finds no free spot goes: its best spot, or the
    // middle of the segment entering the result.
    let fallback = |e: usize| match spots[e].first() {
        Some(s) => s.rect,
        None => {
            let points = &lines[e];
            let (a, b) = (points[points.len() - 2], points[points.len() - 1]);
            let (w, h, _) = sizes[e];
            Rect {
                x: (a.0 + b.0 - w) / 2.0,
                y: (a.1 + b.1 - h) / 2.0,
                w,
                h,
            }
        }
    };
    let mut blocked = Vec::new();
    for e in order {
        let free = spots[e]
            .iter()
            .position(|s| conflicts(&grid, &chosen, s.rect).is_empty());
        if let Some(k) = free {
            chosen[e] = Some(k);
            grid.insert(spots[e][k].rect, e);
            continue;
        }
        // Move one placed label out of the way, to a free spot of its own.
        let mut moved = false;
        for (k, spot) in spots[e].iter().enumerate() {
            let [o] = conflicts(&grid, &chosen, spot.rect)[..] else {
                continue;
            };
            let old = chosen[o].take().expect("placed");
            grid.remove(spots[o][old].rect, o);
            let grown = spot.rect.grow(CLEARANCE);
            let elsewhere = spots[o].iter().position(|s| {
                !s.rect.overlaps(&grown) && conflicts(&grid, &chosen, s.rect).is_empty()
            });
            let new = elsewhere.unwrap_or(old);
            chosen[o] = Some(new);
            grid.insert(spots[o][new].rect, o);
            if elsewhere.is_some() {
                chosen[e] = Some(k);
                grid.insert(spot.rect, e);
                moved = true;
                break;
            }
        }
        if !moved {
            let r = fallback(e);
            blocked.push(r.x + r.w / 2.0);
        }
    }
    let rects = (0..lines.len())
        .map(|e| chosen[e].map_or_else(|| fallback(e), |k| spots[e][k].rect))
        .collect();
    let crossed = (0..lines.len())
        .filter_map(|e| {
            let s = &spots[e][chosen[e]?];
            s.crossed.then_some(s.rect.x + s.rect.w / 2.0)
        })
        .collect();
    Placement {
        rects,
        blocked,
        crossed,
    }
}
