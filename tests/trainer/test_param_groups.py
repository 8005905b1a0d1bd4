"""``trainer.param_groups``: decay / no-decay split, tagged groups by glob pattern, adjust_learning_rate."""

from __future__ import annotations

import copy
import io

import pytest
import torch
from torch import nn

from schedulers import LinearScheduler
from schedulers.core.torch_scheduler import normalize_tags, targeted_groups
from trainer.param_groups import (
    ADJUSTED_MARKER,
    NORM_LAYERS,
    apply_adjust_learning_rate,
    decay_groups,
    tagged_groups,
)
from trainer.trainer import Trainer


class TinyTransformer(nn.Module):
    """Embedding -> TransformerEncoderLayer -> LayerNorm -> Linear head (names: emb, encoder, norm, head)."""

    def __init__(self, vocab: int = 20, width: int = 8, tie: bool = False) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.encoder = nn.TransformerEncoderLayer(width, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)
        if tie:
            self.head.weight = self.emb.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.encoder(self.emb(tokens))))


def names_of(model: nn.Module, params) -> set[str]:
    by_id = {id(p): name for name, p in model.named_parameters()}
    return {by_id[id(p)] for p in params}


TRANSFORMER_DECAY = {
    "emb.weight",
    "encoder.self_attn.in_proj_weight",
    "encoder.self_attn.out_proj.weight",
    "encoder.linear1.weight",
    "encoder.linear2.weight",
    "head.weight",
}
TRANSFORMER_NO_DECAY = {
    "encoder.self_attn.in_proj_bias",
    "encoder.self_attn.out_proj.bias",
    "encoder.linear1.bias",
    "encoder.linear2.bias",
    "encoder.norm1.weight",
    "encoder.norm1.bias",
    "encoder.norm2.weight",
    "encoder.norm2.bias",
    "norm.weight",
    "norm.bias",
    "head.bias",
}


# -- decay_groups --------------------------------------------------------------------------------------


def test_transformer_biases_and_norms_are_not_decayed_linear_weights_are():
    model = TinyTransformer()
    decay, no_decay = decay_groups(model, 0.05)
    assert decay["tags"] == ["decay"] and decay["weight_decay"] == 0.05
    assert no_decay["tags"] == ["no_decay"] and no_decay["weight_decay"] == 0.0
    assert names_of(model, decay["params"]) == TRANSFORMER_DECAY
    assert names_of(model, no_decay["params"]) == TRANSFORMER_NO_DECAY
    # every parameter exactly once, in named_parameters() order within each group
    order = [name for name, _ in model.named_parameters()]
    for group in (decay, no_decay):
        names = [n for n in order if n in names_of(model, group["params"])]
        assert [id(p) for p in group["params"]] == [id(dict(model.named_parameters())[n]) for n in names]
    assert len(decay["params"]) + len(no_decay["params"]) == len(order)


def test_embeddings_flag_and_name_patterns():
    model = TinyTransformer()
    decay, no_decay = decay_groups(model, 0.1, no_decay_embeddings=True)
    assert names_of(model, no_decay["params"]) == TRANSFORMER_NO_DECAY | {"emb.weight"}
    decay, no_decay = decay_groups(model, 0.1, no_decay=(*NORM_LAYERS, "head.*", "*.in_proj_weight"))
    assert names_of(model, decay["params"]) == TRANSFORMER_DECAY - {"head.weight", "encoder.self_attn.in_proj_weight"}


def test_tied_weight_appears_once_and_any_owner_can_exempt_it():
    model = TinyTransformer(tie=True)
    decay, no_decay = decay_groups(model, 0.1)
    assert "emb.weight" in names_of(model, decay["params"])
    assert sum(p is model.emb.weight for g in (decay, no_decay) for p in g["params"]) == 1
    groups = decay_groups(model, 0.1, no_decay_embeddings=True)
    no_decay = [g for g in groups if g["tags"] == ["no_decay"]][0]
    assert any(p is model.head.weight for p in no_decay["params"])  # the head shares the embedding's weight


class MatrixNorm(nn.Module):
    """A norm layer with a 2-D parameter: only module-type membership can exempt it."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3, 3))


def test_norm_layer_types_and_custom_types():
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.GroupNorm(2, 4), nn.InstanceNorm2d(4, affine=True), MatrixNorm()
    )
    if hasattr(nn, "RMSNorm"):
        model.append(nn.RMSNorm(4))
    decay, no_decay = decay_groups(model, 0.1)
    assert names_of(model, decay["params"]) == {"0.weight", "4.scale"}
    decay, _ = decay_groups(model, 0.1, no_decay=(*NORM_LAYERS, MatrixNorm))
    assert names_of(model, decay["params"]) == {"0.weight"}


def test_empty_groups_are_left_out_and_arguments_checked():
    assert [g["tags"] for g in decay_groups(nn.LayerNorm(4), 0.1)] == [["no_decay"]]
    assert [g["tags"] for g in decay_groups(nn.Linear(2, 2, bias=False), 0.1)] == [["decay"]]
    for bad in (-0.1, float("nan"), "0.1", True):
        with pytest.raises(ValueError, match="weight_decay"):
            decay_groups(nn.Linear(2, 2), bad)
    with pytest.raises(TypeError, match=r"no_decay\[0\]"):
        decay_groups(nn.Linear(2, 2), 0.1, no_decay=[3])
    with pytest.raises(TypeError, match="nn.Module"):
        decay_groups([nn.Linear(2, 2)], 0.1)


def test_groups_build_an_optimizer_whose_state_dict_loads_weights_only():
    model = TinyTransformer()
    optimizer = torch.optim.AdamW(decay_groups(model, 0.05), lr=1e-3)
    assert [g["weight_decay"] for g in optimizer.param_groups] == [0.05, 0.0]
    assert targeted_groups(optimizer, normalize_tags("no_decay"), "test") == [1]
    buffer = io.BytesIO()
    torch.save(optimizer.state_dict(), buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)
    assert [g["tags"] for g in loaded["param_groups"]] == [["decay"], ["no_decay"]]


def test_weight_decay_schedule_targets_only_the_decay_group_in_a_run():
    torch.manual_seed(0)
    model = TinyTransformer()
    data = [(torch.randint(0, 20, (2, 5)), torch.randint(0, 20, (2, 5))) for _ in range(3)]
    optimizer = torch.optim.AdamW(decay_groups(model, 0.1), lr=1e-3)
    seen = []
    optimizer.register_step_pre_hook(
        lambda opt, args, kwargs: seen.append([g["weight_decay"] for g in opt.param_groups])
    )
    trainer = Trainer(
        model,
        data,
        "6ba",
        optimizer,
        schedulers={
            "schedule": LinearScheduler(1.0, 0.0),
            "hyperparameter": "weight_decay",
            "param_group_tags": "decay",
        },
        loss_fn=lambda logits, target: nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten()),
        progress_bar=False,
    )
    trainer.fit()
    assert [row[1] for row in seen] == [0.0] * 6
    assert [row[0] for row in seen] == pytest.approx([0.1 * (1 - k / 6) for k in range(6)], rel=1e-12)


# -- tagged_groups -------------------------------------------------------------------------------------


class Nested(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = TinyTransformer()
        self.proj = nn.Linear(8, 2)


def test_glob_tags_options_and_default_group():
    model = Nested()
    specs = [
        {"params": ["*.emb*"], "tag": "emb", "lr": 0.01, "adjust_learning_rate": 0.5},
        {"params": ["*.bias", "*norm*"], "tags": ["no_decay", "small"], "weight_decay": 0.0},
    ]
    original = copy.deepcopy(specs)
    groups = tagged_groups(model, specs, default_tag="rest")
    assert specs == original  # not modified
    assert [g["tags"] for g in groups] == [["emb"], ["no_decay", "small"], ["rest"]]
    assert groups[0]["lr"] == 0.01 and groups[0]["adjust_learning_rate"] == 0.5 and "weight_decay" not in groups[0]
    assert groups[1]["weight_decay"] == 0.0 and "lr" not in groups[1]
    assert set(groups[2]) == {"params", "tags"}
    assert names_of(model, groups[0]["params"]) == {"encoder.emb.weight"}
    biases_and_norms = {n for n, _ in model.named_parameters() if n.endswith(".bias") or "norm" in n}
    assert names_of(model, groups[1]["params"]) == biases_and_norms
    all_names = {n for n, _ in model.named_parameters()}
    assert names_of(model, groups[2]["params"]) == all_names - biases_and_norms - {"encoder.emb.weight"}
    # every parameter exactly once, and torch accepts the groups
    assert sum(len(g["params"]) for g in groups) == len(all_names)
    optimizer = torch.optim.AdamW(groups, lr=1e-3)
    assert [g["lr"] for g in optimizer.param_groups] == [0.01, 1e-3, 1e-3]
    assert targeted_groups(optimizer, normalize_tags("small"), "test") == [1]


def test_default_group_without_tag_and_left_out_when_everything_matched():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    groups = tagged_groups(model, [{"params": "0.*", "tag": "first"}])
    assert groups[1] == {"params": list(model[1].parameters())}
    groups = tagged_groups(model, [{"params": "0.*", "tag": "a"}, {"params": "1.*", "tag": "b"}], default_tag="x")
    assert [g["tags"] for g in groups] == [["a"], ["b"]]
    # two patterns of one spec may match the same parameter
    groups = tagged_groups(model, [{"params": ["0.*", "*.weight"], "tag": "a"}])
    assert names_of(model, groups[0]["params"]) == {"0.weight", "0.bias", "1.weight"}


def test_a_parameter_matched_by_two_specs_is_an_error_naming_it_and_both_patterns():
    model = TinyTransformer()
    with pytest.raises(ValueError) as error:
        tagged_groups(model, [{"params": "head.*", "tag": "head"}, {"params": ["emb.*", "*.bias"], "tag": "bias"}])
    message = str(error.value)
    assert "'head.bias'" in message and "'head.*'" in message and "'*.bias'" in message


def test_a_pattern_matching_nothing_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"specs\[1\] pattern '\*\.emb\*' matches no parameter"):
        # '*' crosses dots but needs a dot before 'emb': the top-level 'emb.weight' does not match
        tagged_groups(TinyTransformer(), [{"params": "head.*"}, {"params": ["*.emb*"], "tag": "emb"}])


@pytest.mark.parametrize(
    "spec, error, match",
    [
        ({"tag": "x"}, ValueError, "no 'params'"),
        ({"params": "*", "tag": "x", "tags": ["y"]}, ValueError, "both 'tag' and 'tags'"),
        ({"params": [torch.zeros(1)]}, ValueError, "glob pattern"),
        ({"params": []}, ValueError, "glob pattern"),
        ({"params": "*", "tag": ""}, ValueError, "tag"),
        ({"params": "*", "tags": [1]}, ValueError, "tag"),
        ("*.bias", TypeError, "must be a dict"),
    ],
)
def test_malformed_specs(spec, error, match):
    with pytest.raises(error, match=match):
        tagged_groups(nn.Linear(2, 2), [spec])


# -- adjust_learning_rate --------------------------------------------------------------------------------


def two_group_sgd(lr=0.1, factor=0.5):
    a, b = torch.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    return torch.optim.SGD([{"params": [a]}, {"params": [b], "adjust_learning_rate": factor}], lr=lr)


def test_scales_lr_and_initial_lr_once():
    optimizer = two_group_sgd()
    optimizer.param_groups[1]["initial_lr"] = 0.2
    assert apply_adjust_learning_rate(optimizer) is optimizer
    apply_adjust_learning_rate(optimizer)
    first, second = optimizer.param_groups
    assert first["lr"] == 0.1 and ADJUSTED_MARKER not in first
    assert second["lr"] == 0.05 and second["initial_lr"] == 0.1 and second[ADJUSTED_MARKER] == 0.5


def test_changed_factor_and_bad_factors_are_errors():
    optimizer = apply_adjust_learning_rate(two_group_sgd())
    optimizer.param_groups[1]["adjust_learning_rate"] = 0.25
    with pytest.raises(ValueError, match=r"param_groups\[1\].*already scaled by adjust_learning_rate=0.5"):
        apply_adjust_learning_rate(optimizer)
    for bad in (-1.0, float("inf"), "2", None):
        with pytest.raises(ValueError, match=r"param_groups\[1\]\['adjust_learning_rate'\]"):
            apply_adjust_learning_rate(two_group_sgd(factor=bad))


def test_tensor_lr_is_scaled_in_place_once():
    w = torch.zeros(2, requires_grad=True)
    lr = torch.tensor(0.1)
    optimizer = torch.optim.Adam([{"params": [w], "adjust_learning_rate": 0.5}], lr=lr)
    group = optimizer.param_groups[0]
    group["initial_lr"] = group["lr"]  # the same tensor object: scaled once
    tensor = group["lr"]
    apply_adjust_learning_rate(optimizer)
    assert group["lr"] is tensor and float(group["lr"]) == pytest.approx(0.05, rel=1e-7)
    assert group["initial_lr"] is tensor


def test_no_double_scaling_after_loading_optimizer_state():
    optimizer = apply_adjust_learning_rate(two_group_sgd())
    saved = copy.deepcopy(optimizer.state_dict())
    fresh = apply_adjust_learning_rate(two_group_sgd())
    fresh.load_state_dict(saved)
    apply_adjust_learning_rate(fresh)
    assert [g["lr"] for g in fresh.param_groups] == [0.1, 0.05]


def test_scaled_group_follows_the_schedule_in_a_run():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
    groups = tagged_groups(model, [{"params": "1.*", "tag": "head", "adjust_learning_rate": 0.25}])
    optimizer = apply_adjust_learning_rate(torch.optim.SGD(groups, lr=0.2))
    seen = []
    optimizer.register_step_pre_hook(lambda opt, args, kwargs: seen.append([g["lr"] for g in opt.param_groups]))
    data = [(torch.randn(2, 3), torch.randn(2, 1)) for _ in range(4)]
    trainer = Trainer(
        model,
        data,
        "4ba",
        optimizer,
        schedulers=LinearScheduler(1.0, 0.0),
        loss_fn=nn.functional.mse_loss,
        progress_bar=False,
    )
    trainer.fit()
    expected = [1 - k / 4 for k in range(4)]
    assert [row[0] for row in seen] == pytest.approx([0.05 * a for a in expected], rel=1e-12)  # the head: 0.25×
    assert [row[1] for row in seen] == pytest.approx([0.2 * a for a in expected], rel=1e-12)
