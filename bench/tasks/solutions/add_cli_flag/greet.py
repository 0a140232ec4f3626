"""Greet someone from the command line: python3 greet.py NAME"""

import argparse


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("--shout", action="store_true", help="print the greeting in capitals")
    args = parser.parse_args(argv)
    message = f"Hello, {args.name}!"
    if args.shout:
        message = message.upper()
    print(message)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
