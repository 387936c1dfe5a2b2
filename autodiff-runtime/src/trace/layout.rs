//! A layered drawing of the trace's graph, computed here so that no
//! Graphviz is needed: layers by longest path from the inputs, left to
//! right; long edges routed through virtual points, one per layer they
//! cross; the order within each layer by barycentre sweeps that keep the
//! order with the fewest crossings; rows placed near their neighbours.

use super::display::DEFAULT_DECIMALS;
use super::dot::node_lines;
use super::{NodeId, Trace};

/// Width of one character of the drawing's monospace font, 13 px.
const CHAR_WIDTH: f64 = 7.8;
pub(crate) const LINE_HEIGHT: f64 = 17.0;
pub(crate) const PAD_X: f64 = 10.0;
pub(crate) const PAD_Y: f64 = 7.0;
const LAYER_GAP: f64 = 100.0;
const ROW_GAP: f64 = 26.0;
const DUMMY_GAP: f64 = 14.0;
const MARGIN: f64 = 16.0;
/// The distance between two edges that join the same two nodes.
const TWIN_GAP: f64 = 9.0;

/// Where [`Trace::layout`] puts every node and edge, in pixels, the origin
/// at the top left.
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

/// An edge, from the operand's box to the result's.
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
}

/// A vertex of the layered graph: a node, or a point of a long edge.
struct Vertex {
    layer: usize,
    width: f64,
    height: f64,
    preds: Vec<usize>,
    succs: Vec<usize>,
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

impl Trace {
    /// Lays the graph out in layers, left to right (see the module
    /// documentation). Deterministic: the same trace gives the same
    /// layout. Meant for graphs a person reads: its time grows with the
    /// number of layers that long edges cross (a value read in every
    /// iteration of a 400-iteration loop: about 0.2 s in a release build).
    pub fn layout(&self) -> Layout {
        let n = self.nodes.len();
        let mut vertices: Vec<Vertex> = Vec::with_capacity(n);
        let mut layers = vec![0usize; n];
        for node in &self.nodes {
            layers[node.id.0] = node
                .inputs
                .iter()
                .map(|p| layers[p.0] + 1)
                .max()
                .unwrap_or(0);
        }
        let lines: Vec<[String; 3]> = self
            .nodes
            .iter()
            .map(|n| node_lines(n, DEFAULT_DECIMALS))
            .collect();
        for (node, lines) in self.nodes.iter().zip(&lines) {
            let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1);
            vertices.push(Vertex {
                layer: layers[node.id.0],
                width: chars as f64 * CHAR_WIDTH + 2.0 * PAD_X,
                height: 3.0 * LINE_HEIGHT + 2.0 * PAD_Y,
                preds: Vec::new(),
                succs: Vec::new(),
            });
        }
        // Each edge as a chain of vertices, one per layer.
        let mut chains: Vec<(NodeId, NodeId, usize, Vec<usize>)> = Vec::new();
        for node in &self.nodes {
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
                chains.push((*p, node.id, k, chain));
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
        let order = best.1;

        // Columns: each layer as wide as its widest box.
        let mut column_x = Vec::with_capacity(depth);
        let mut x = MARGIN;
        for layer in &order {
            column_x.push(x);
            let w = layer.iter().map(|&v| vertices[v].width).fold(0.0, f64::max);
            x += w + LAYER_GAP;
        }
        let width = x - LAYER_GAP + MARGIN;

        // Rows: centres placed in order, then pulled towards their
        // neighbours' centres a few times, never overlapping.
        let gap = |v: usize| {
            if vertices[v].width == 0.0 {
                DUMMY_GAP
            } else {
                ROW_GAP
            }
        };
        let mut cy = vec![0.0; vertices.len()];
        for layer in &order {
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
                place(layer, &wanted, &vertices, &gap, &mut cy);
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

        let nodes: Vec<LayoutNode> = self
            .nodes
            .iter()
            .zip(lines)
            .map(|(node, lines)| {
                let v = &vertices[node.id.0];
                LayoutNode {
                    id: node.id,
                    layer: v.layer,
                    x: column_x[v.layer],
                    y: cy[node.id.0] - v.height / 2.0,
                    width: v.width,
                    height: v.height,
                    lines,
                }
            })
            .collect();
        // An operand read twice by one node (x * x) gets two edges, drawn
        // side by side.
        let pairs: Vec<(NodeId, NodeId)> = chains.iter().map(|c| (c.0, c.1)).collect();
        let edges = chains
            .into_iter()
            .enumerate()
            .map(|(e, (from, to, input, chain))| {
                let same = pairs.iter().filter(|p| **p == (from, to)).count();
                let rank = pairs[..e].iter().filter(|p| **p == (from, to)).count();
                let offset = (rank as f64 - (same - 1) as f64 / 2.0) * TWIN_GAP;
                let last = chain.len() - 1;
                let points = chain
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        let vx = &vertices[v];
                        let x = if i == 0 {
                            column_x[vx.layer] + vx.width
                        } else if i == last {
                            column_x[vx.layer]
                        } else {
                            column_x[vx.layer] + vx.width / 2.0
                        };
                        (x, cy[v] + offset)
                    })
                    .collect();
                LayoutEdge {
                    from,
                    to,
                    input,
                    points,
                }
            })
            .collect();
        Layout {
            width,
            height: height.max(2.0 * MARGIN),
            nodes,
            edges,
        }
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
