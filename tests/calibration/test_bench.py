from calibration.bench import main, unreachable_light


def test_a_light_filter_no_photo_of_the_tier_can_pass_is_refused_before_rendering(capsys) -> None:
    # medium tables are lit at 3300 K or more: the default 2800 K filter would render for ever and keep nothing
    assert "--max-kelvin 2800" in unreachable_light("medium", 2800.0, 0.45)
    assert "--min-falloff 0.9" in unreachable_light("hard", 99999.0, 0.9)
    assert unreachable_light("hard", 2800.0, 0.45) is None
    assert unreachable_light("medium", 99999.0, 0.0) is None
    assert main(["--tier", "medium", "--split", "dev", "--count", "3"]) == 2
    assert "medium tier is lit at 3300-6500 K" in capsys.readouterr().err
