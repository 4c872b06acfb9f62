"""One GPU stage end to end on this CPU: prepare the kit, run device_run.sh, check what came back.

The lent machine's part runs here with a tiny config, `DEVICE=cpu` and a folder standing in for
`$OUT`; the returned files are then assembled, loaded and evaluated as after a real stage.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from neural_debugger.evaluation import stage_check
from neural_debugger.model_backend.local import load_model
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.training import gpu_stage
from neural_debugger.training.tokenizer import tokenizer_kind

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "models" / "ndb-small"


def prepare(kit: Path, *args: str) -> int:
    return gpu_stage.main(["--root", str(ROOT), "--kit", str(kit), "prepare", *args])


def test_a_new_model_stage_runs_end_to_end(
    stage_data: Path,
    carried_kit: Callable[[Path], Path],
    run_stage: Callable[..., subprocess.CompletedProcess[str]],
    tmp_path: Path,
) -> None:
    data = stage_data
    kit = carried_kit(tmp_path / "kit")
    argv = ["--root", str(ROOT), "--kit", str(kit), "prepare", "--config", "tiny"]
    argv += ["--minutes", "0.1"]
    argv += ["--stage-seconds", "200", "--tokenizer-data", str(data / "train")]
    assert gpu_stage.main(argv) == 0
    settings = gpu_stage.read_stage_env(kit / "stage.env")
    assert settings["RESUME"] == "" and settings["CONFIG"] == "tiny"
    assert settings["STREAM_PROGRAMS"] == "0"  # no data Python carried: the carried shards
    assert tokenizer_kind(load_tokenizer(Path(settings["TOKENIZER"]))) == "value"

    out, work = tmp_path / "out", tmp_path / "work"
    run = run_stage(kit, out, work)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "train: config tiny from scratch" in run.stdout
    returned = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert returned == [
        "logs.tar.gz", "model/config.json", "model/model.safetensors", "model/run.json"
    ]  # fmt: skip
    assert len(returned) <= gpu_stage.RETURN_FILES

    code = stage_check.main(
        [str(out), "--kit", str(kit), "--data", str(data / "heldout"), "--out",
         str(tmp_path / "check"), "--per-action", "1"]
    )  # fmt: skip
    assert code == 0
    model = tmp_path / "check" / "model"
    assert 300 < load_model(model).vocab.size <= 512  # the tiny config's vocabulary
    result = json.loads((tmp_path / "check" / "stage_check.json").read_text())
    assert result["record"]["config"] == "tiny" and result["record"]["tokenizer"] == "value"
    assert result["record"]["steps"] >= 1 and result["baseline"] is None
    assert result["returned"]["results"]  # every action measured
    assert "train.log" in os.listdir(tmp_path / "check" / "logs")


def test_a_resumed_stage_gets_its_tokenizer_back_from_the_resumed_folder(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "data.tar.xz").write_bytes(b"")
    assert prepare(kit, "--resume", str(SHIPPED)) == 0
    settings = gpu_stage.read_stage_env(kit / "stage.env")
    assert settings["RESUME"] == "models/ndb-small" and "TOKENIZER" not in settings
    assert int(settings["SEED"]) > 20_000  # a stage after the shipped model's own
    # weights as device_run.sh returns them: no tokenizer, no generation config
    returned = tmp_path / "returned" / "model"
    returned.mkdir(parents=True)
    for path in SHIPPED.iterdir():
        if path.name.startswith("model") or path.name in ("config.json", "run.json"):
            shutil.copy(path, returned / path.name)
    home, resumed = stage_check.tokenizer_home(ROOT, kit)
    assert resumed == SHIPPED
    model = stage_check.assemble(returned.parent, home, tmp_path / "check")
    shipped_hidden = json.loads((SHIPPED / "config.json").read_text())["hidden_size"]
    assert load_model(model).model.config.hidden_size == shipped_hidden
    shipped_earlier = json.loads((SHIPPED / "run.json").read_text())["state"]["earlier"]
    assert stage_check.stage_record(model)["earlier_stages"] == len(shipped_earlier)


def test_a_time_box_the_command_cannot_hold_is_refused(tmp_path: Path, capsys) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "data.tar.xz").write_bytes(b"")
    # 540 s less set-up and collection leaves 7.25 minutes for training
    assert prepare(kit, "--resume", str(SHIPPED), "--minutes", "8") == 2
    said = capsys.readouterr().out
    assert "do not fit a 540 s command" in said and "at most 7.25 minutes" in said
    assert not (kit / "stage.env").exists()
    assert prepare(kit, "--resume", str(SHIPPED), "--minutes", "8", "--stage-seconds", "600") == 0
    assert gpu_stage.read_stage_env(kit / "stage.env")["MINUTES"] == "8"
    assert prepare(kit, "--resume", str(SHIPPED)) == 0  # the default fits the default command
    assert gpu_stage.read_stage_env(kit / "stage.env")["MINUTES"] == "7"


def test_a_stream_asks_for_enough_programs_to_last_the_time_box(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "python.tar.xz").write_bytes(b"")  # the data Python: data is made there
    for minutes, wanted in (("7", 280_000), ("10.5", 420_000)):
        argv = ["--resume", str(SHIPPED), "--minutes", minutes, "--stage-seconds", "900"]
        assert prepare(kit, *argv) == 0
        settings = gpu_stage.read_stage_env(kit / "stage.env")
        assert int(settings["STREAM_PROGRAMS"]) == wanted
        # twice stage 6's rate over the whole box: it ran dry at half its 10.5 minutes
        assert wanted >= 2 * 330 * 60 * float(minutes)
        workers = int(settings["GEN_WORKERS"]) + int(settings["PACK_WORKERS"])
        assert workers <= 14  # the trainer and the data run's main process keep a core each
    assert prepare(kit, "--resume", str(SHIPPED), "--stream-programs", "5000") == 0
    assert gpu_stage.read_stage_env(kit / "stage.env")["STREAM_PROGRAMS"] == "5000"


def test_a_stage_over_the_carry_limit_is_refused(tmp_path: Path, capsys) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    with (kit / "data.tar.xz").open("wb") as f:  # sparse: 60 MiB counted, nothing written
        f.truncate(60 * 2**20)
    assert prepare(kit, "--resume", str(SHIPPED)) == 3
    said = capsys.readouterr().out
    assert "over the 64.0 MiB limit" in said and "travelling: " in said
    assert prepare(kit, "--resume", str(tmp_path)) == 2  # not a model folder
    elsewhere = tmp_path / "elsewhere"  # a model folder that would stay behind
    elsewhere.mkdir()
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(SHIPPED / name, elsewhere / name)
    capsys.readouterr()
    assert prepare(kit, "--resume", str(elsewhere)) == 2
    assert "would not travel" in capsys.readouterr().out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert prepare(empty, "--resume", str(SHIPPED)) == 2
