#!/bin/sh
greet() {
  echo "Hello, $1"
}
