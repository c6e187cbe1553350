# SPDX-License-Identifier: Apache-2.0
"""attnscope's Python side: annotate attention calls so `attnscope profile -- python ...` can model them."""

from .annotate import annotate, annotate_backward, annotation_messages, format_annotation, format_tile_hint, shape_of

__all__ = ["annotate", "annotate_backward", "annotation_messages", "format_annotation", "format_tile_hint", "shape_of"]
