//! Where a body's pieces are: the world pose of piece `p` of body `b` is the body's pose
//! (from the state) composed with the piece's pose in the body frame (from the model),
//! X_world = X_body(state) ∘ X_piece(model).
use super::{Model, State};
use crate::geometry::Pose;

/// World pose of a piece.
pub fn piece_pose(model: &Model, state: &State, body: usize, piece: usize) -> Pose {
    state.bodies[body]
        .pose()
        .mul(&model.bodies[body].pieces[piece].pose)
}
